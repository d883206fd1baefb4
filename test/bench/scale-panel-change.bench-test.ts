import { env } from 'cloudflare:workers'
import { expect, it } from 'vitest'
import { db } from '../../src/db/client'
import type { Env } from '../../src/env'
import { addHttpRoute, enqueueReconcile, type RouteWrites, removeRoute } from '../../src/routes/http-route'
import { siteWithToken } from '../custom-hostnames/fixture'
import { captureJobs } from '../dns-servers/run-job'
import { FakeNodeAgent } from '../fakes/node-agent'
import { meterD1 } from '../helpers/d1-meter'
import { ok } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { seedServedHostnames } from '../helpers/seed-hostnames'

// The bench behind test/bench/scale-panel-change.mjs: for a node serving N hostnames, the D1 rows the panel reads
// and the bytes it sends the node for one added and one removed hostname (the route writes and the reconcile
// job), to an agent 0.4.0 (what changed) and to an agent before it (the whole state, as every agent got before
// the delta contract). The routes are added through the seam register uses, since the node cap (20,000 today)
// refuses a register beside 100,000; test/routes-change-cost.test.ts counts register itself.

const workerEnv = env as unknown as Env
const database = db(workerEnv.DB)
const COUNTS = (env as unknown as { BENCH_HOSTNAMES: string }).BENCH_HOSTNAMES.split(',').map(Number)
const routeIds: string[] = []

async function change(agent: FakeNodeAgent, write: () => Promise<RouteWrites>) {
  const sent = captureJobs()
  const calls = agent.calls.length
  const meter = meterD1()
  try {
    const { routeId, nodeId, writes } = await write()
    const [first, ...rest] = writes
    if (first) await database.batch([first, ...rest])
    await enqueueReconcile(workerEnv, nodeId)
    routeIds.push(routeId)
    await drainJobs(sent, 'route.')
  } finally {
    meter.stop()
  }
  const bodies = agent.calls.slice(calls)
  return {
    rowsRead: meter.rowsRead(),
    bytesSent: bodies.reduce((total, call) => total + call.bytes, 0),
    paths: bodies.map((call) => call.path).join(' '),
  }
}

it('measures one added and one removed hostname at each size, for both designs', async () => {
  const admin = await adminSession()
  for (const count of COUNTS) {
    for (const design of ['whole state', 'changes'] as const) {
      const site = await siteWithToken(admin)
      const zone = `${crypto.randomUUID().slice(0, 8)}-bench.com`
      const started = Date.now()
      const vhosts = await seedServedHostnames(site, zone, count)
      const seededMs = Date.now() - started
      const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
      const agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
      agent.deltas = design === 'changes'
      agent.edge = { configVersion: 1, vhosts, forwards: [] }
      const hostname = `added.${zone}`
      const added = await change(agent, () =>
        addHttpRoute(database, { siteId: site.siteId, hostname, issuer: 'pebble' }),
      )
      expect(agent.edge.vhosts.some((vhost) => vhost.hostname === hostname)).toBe(true)
      const routeId = routeIds.at(-1) ?? ''
      const removed = await change(agent, () => removeRoute(database, routeId))
      expect(agent.edge.vhosts.some((vhost) => vhost.hostname === hostname)).toBe(false)
      for (const [kind, measured] of [['add', added] as const, ['remove', removed] as const])
        console.log(
          `PANEL-CHANGE ${JSON.stringify({ hostnames: count, design, change: kind, seededMs, ...measured })}`,
        )
    }
  }
})

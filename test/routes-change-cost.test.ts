import { env } from 'cloudflare:workers'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../src/db/client'
import { customHostnames } from '../src/db/schema/custom-hostnames'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import { meterD1 } from './helpers/d1-meter'
import { type Caller, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { adminSession } from './helpers/principals'
import { seedServedHostnames } from './helpers/seed-hostnames'

// Goal 2 of issue #30: one register, remove or re-plan of a custom hostname costs the panel the same D1 rows read
// and the same bytes sent to the node whether the node serves 10 hostnames or 10,000. Counted through the real
// procedures and the real queue consumer; the node is an agent 0.4.0 serving what was seeded.

interface Cost {
  /** Rows read by every statement of the call and of the jobs it queued, the cap guards included. */
  rowsRead: number
  /** Bytes of the bodies sent to the node's agent. */
  bytesSent: number
}

const workerEnv = env as unknown as Env
const database = db(workerEnv.DB)
interface Node {
  site: SiteFixture
  agent: FakeNodeAgent
  sent: SentJob[]
  zone: string
}

let admin: Caller
const nodes = new Map<number, Node>()

async function nodeServing(count: number): Promise<Node> {
  const site = await siteWithToken(admin)
  const seeded = await ok<{ id: string }>(
    'sites.create',
    { instanceId: site.instanceId, name: `seeded-${crypto.randomUUID().slice(0, 6)}` },
    admin,
  )
  const zone = `${crypto.randomUUID().slice(0, 8)}-cost.com`
  const vhosts = await seedServedHostnames(
    { nodeId: site.nodeId, instanceId: site.instanceId, siteId: seeded.id },
    zone,
    count,
  )
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
  const agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789')
  agent.deltas = true
  agent.edge = { configVersion: 1, vhosts, forwards: [] }
  return { site, agent, sent: [], zone }
}

/** What `change` and the jobs it queued cost, the route reconcile included. */
async function cost(node: Node, change: () => Promise<unknown>): Promise<Cost> {
  node.agent.install()
  node.sent = captureJobs()
  const calls = node.agent.calls.length
  const meter = meterD1()
  try {
    await change()
    await drainJobs(node.sent, 'route.')
  } finally {
    meter.stop()
  }
  return {
    rowsRead: meter.rowsRead(),
    bytesSent: node.agent.calls.slice(calls).reduce((total, call) => total + call.bytes, 0),
  }
}

const register = (node: Node, label: string) =>
  ok(
    'customHostnames.register',
    { siteId: node.site.siteId, hostname: `${label}.${node.zone}` },
    node.site.app,
  )

const measured = new Map<string, Map<number, Cost>>()
function keep(change: string, count: number, measuredCost: Cost) {
  const byCount = measured.get(change) ?? new Map<number, Cost>()
  byCount.set(count, measuredCost)
  measured.set(change, byCount)
}

beforeAll(async () => {
  admin = await adminSession()
  for (const count of [10, 10_000]) nodes.set(count, await nodeServing(count))
}, 120_000)

/** Registers, removes and re-plans a custom hostname on the node, keeping what each cost. */
async function changes(node: Node, count: number) {
  keep('register', count, await cost(node, () => register(node, 'shop')))
  expect(
    node.agent
      .changeSets()
      .at(-1)
      ?.vhosts.map((vhost) => vhost.hostname),
  ).toEqual([`shop.${node.zone}`])
  const remove = () =>
    ok('customHostnames.remove', { siteId: node.site.siteId, hostname: `shop.${node.zone}` }, node.site.app)
  keep('remove', count, await cost(node, remove))
  expect(node.agent.changeSets().at(-1)?.removeHostnames).toEqual([`shop.${node.zone}`])
  // A hostname seen resolving, whose plan moves with its node's new DNS target: registering it again re-plans
  // it, its lookup starts over and the node learns it may not issue its certificate yet.
  await cost(node, () => register(node, 'moved'))
  await database
    .update(customHostnames)
    .set({ dnsResolvedAt: new Date() })
    .where(
      and(eq(customHostnames.siteId, node.site.siteId), eq(customHostnames.hostname, `moved.${node.zone}`)),
    )
  await ok('nodes.update', { id: node.site.nodeId, dnsTarget: `moved.${node.zone}.edge.example.net` }, admin)
  keep('re-plan', count, await cost(node, () => register(node, 'moved')))
  expect(node.agent.changeSets().at(-1)?.vhosts).toEqual([
    expect.objectContaining({ hostname: `moved.${node.zone}`, issuable: false }),
  ])
  expect(node.agent.calls.every((call) => call.path !== '/v2/edge/apply')).toBe(true)
}

describe('the cost of one change on a node serving 10 or 10,000 hostnames', () => {
  it('should read as many rows and send as many bytes for a register, a remove and a re-plan at 10,000 as at 10', async () => {
    for (const [count, node] of nodes) await changes(node, count)
    const table = [...measured].map(([change, byCount]) => ({ change, ...Object.fromEntries(byCount) }))
    console.log(`change costs: ${JSON.stringify(table)}`)
    for (const [, byCount] of measured) {
      const [small, large] = [byCount.get(10), byCount.get(10_000)]
      if (!small || !large) throw new Error('a count was not measured')
      expect(large.rowsRead).toBeLessThanOrEqual(small.rowsRead + 5)
      expect(large.bytesSent).toBe(small.bytesSent)
    }
  }, 300_000)
})

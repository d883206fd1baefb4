import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { db } from '../src/db/client'
import { nodeEdgeVersions } from '../src/db/schema/routes'
import type { Env } from '../src/env'
import { addHttpRoute, enqueueReconcile, removeRoute } from '../src/routes/http-route'
import { MAX_RECONCILE_ATTEMPTS } from '../src/routes/reconcile-job'
import { routeSweepTask } from '../src/routes/sweep-cron'
import { siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import { runCron, runJobs } from './helpers/changelog'
import { type Caller, ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'
import { adminSession } from './helpers/principals'

interface RouteRow {
  id: string
  kind: string
  hostname: string | null
  status: string
  configVersion: number
  edgeConfig: { appliedVersion: number | null; firewallManaged: boolean | null; error: string | null }
}

interface DeadJob {
  id: string
  kind: string
  targetKind: string
  targetId: string
  state: string
  attempts: number
  lastError: string | null
}

const workerEnv = env as unknown as Env
const AGENT_SECRET = 'agent-secret-0123456789'
let admin: Caller
let sent: SentJob[]
let agent: FakeNodeAgent
let nodeId: string
let siteId: string
let instanceId: string

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  const site = await siteWithToken(admin)
  nodeId = site.nodeId
  siteId = site.siteId
  instanceId = site.instanceId
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, AGENT_SECRET).install()
})

const routes = () => ok<RouteRow[]>('routes.listForInstance', { instanceId }, admin)
const openRaw = (listenPort: number, targetPort = 80, proto = 'tcp') =>
  ok<RouteRow>('routes.createRaw', { instanceId, siteId, listenPort, targetPort, proto }, admin)

/** Adds an http route through the seam domains and custom hostnames use: their batch, then the reconcile. */
async function attachHostname(hostname: string): Promise<string> {
  const added = await addHttpRoute(db(workerEnv.DB), { siteId, hostname, issuer: 'pebble' })
  const [first, ...rest] = added.writes
  if (first) await db(workerEnv.DB).batch([first, ...rest])
  await enqueueReconcile(workerEnv, added.nodeId)
  return added.routeId
}

describe('route.reconcile', () => {
  it("should push the node's whole edge state and turn its routes active when the agent confirms", async () => {
    await openRaw(2222, 22)
    await attachHostname('shop.example.com')
    await drainJobs(sent, 'route.')
    // Two route changes, two versions: the job of version 1 saw version 2 and left the push to it. No domain
    // or custom hostname claims the name, so the node may not obtain its certificate.
    expect(agent.applies()).toEqual([
      {
        configVersion: 2,
        vhosts: [
          { hostname: 'shop.example.com', upstream: '10.0.0.5:80', issuer: 'pebble', issuable: false },
        ],
        forwards: [{ listenPort: 2222, proto: 'tcp', upstream: '10.0.0.5:22' }],
      },
    ])
    const rows = await routes()
    expect(
      rows.map((r) => [r.kind, r.status, r.edgeConfig.appliedVersion, r.edgeConfig.firewallManaged]),
    ).toEqual([
      ['http', 'active', 2, null],
      ['raw', 'active', 2, false],
    ])
  })

  it('should do nothing for a job older than the node version, and nothing twice for an applied one', async () => {
    await openRaw(3000)
    await openRaw(3001)
    expect(await runJob({ type: 'route.reconcile', nodeId, version: 1 })).toEqual({
      acked: true,
      retryDelay: null,
    })
    expect(agent.applies()).toEqual([])
    await runJob({ type: 'route.reconcile', nodeId, version: 2 })
    await runJob({ type: 'route.reconcile', nodeId, version: 2 })
    expect(agent.applies().map((state) => state.configVersion)).toEqual([2])
  })

  it('should leave routes pending when the agent already serves a newer version (superseded)', async () => {
    agent.edge = { configVersion: 50, vhosts: [], forwards: [] }
    await openRaw(3100)
    await drainJobs(sent, 'route.')
    expect(agent.applies().map((state) => state.configVersion)).toEqual([1])
    expect((await routes()).map((r) => r.status)).toEqual(['pending'])
  })

  it("should mark unconfirmed routes error with the agent's reason on a 422, keeping served ones active", async () => {
    await openRaw(4000)
    await drainJobs(sent, 'route.')
    agent.refuseApply = 'loading new config: http.handlers.reverse_proxy: invalid upstream'
    await openRaw(4001)
    await drainJobs(sent, 'route.')
    const [refused, served] = await routes()
    expect(refused).toMatchObject({ status: 'error', configVersion: 2 })
    expect(refused?.edgeConfig.error).toBe(
      'the node agent answered 422: loading new config: http.handlers.reverse_proxy: invalid upstream',
    )
    expect(served).toMatchObject({ status: 'active', edgeConfig: { appliedVersion: 1, error: null } })
    agent.refuseApply = null
    await ok('routes.reconcile', { id: refused?.id }, admin)
    await drainJobs(sent, 'route.')
    expect((await routes()).map((r) => [r.status, r.edgeConfig.error])).toEqual([
      ['active', null],
      ['active', null],
    ])
  })

  it('should retry an agent that is down, and mark the routes error after the last attempt', async () => {
    agent.down = true
    await openRaw(5000)
    const job = sent[0]?.body
    if (!job) throw new Error('no reconcile queued')
    expect((await runJobs([{ body: job, attempts: 1 }])).retryDelays).toEqual({ 'msg-0': 15 })
    expect((await runJobs([{ body: job, attempts: 2 }])).retryDelays).toEqual({ 'msg-0': 30 })
    expect((await routes()).map((r) => r.status)).toEqual(['pending'])
    expect(await runJob(job, MAX_RECONCILE_ATTEMPTS)).toEqual({ acked: true, retryDelay: null })
    const [row] = await routes()
    expect(row?.status).toBe('error')
    expect(row?.edgeConfig.error).toMatch(
      new RegExp(
        `^not applied after ${MAX_RECONCILE_ATTEMPTS} attempts: the node agent at .* did not answer`,
      ),
    )
  })

  it('should list a reconcile that exhausted its retries on jobs.list, and run it again with jobs.retry', async () => {
    agent.down = true
    await openRaw(5001)
    const job = sent[0]?.body
    if (!job) throw new Error('no reconcile queued')
    for (let attempt = 1; attempt < MAX_RECONCILE_ATTEMPTS; attempt++) await runJob(job, attempt)
    await runJob(job, MAX_RECONCILE_ATTEMPTS)
    expect((await routes())[0]?.status).toBe('error')
    const { jobs } = await ok<{ jobs: DeadJob[] }>(
      'jobs.list',
      { kind: 'route.reconcile', state: 'dead' },
      admin,
    )
    const dead = jobs.find((row) => row.targetId === nodeId)
    expect(dead).toMatchObject({
      kind: 'route.reconcile',
      targetKind: 'node',
      attempts: MAX_RECONCILE_ATTEMPTS,
    })
    expect(dead?.lastError).toMatch(/^not applied after \d+ attempts: the node agent at .* did not answer/)

    agent.down = false
    sent.length = 0
    await ok('jobs.retry', { id: dead?.id }, admin)
    const resent = sent.find((message) => (message.body as { type: string }).type === 'jobs.retried')
    if (!resent) throw new Error('jobs.retry sent nothing')
    expect(await runJob(resent.body)).toEqual({ acked: true, retryDelay: null })
    expect((await routes()).map((r) => r.status)).toEqual(['active'])
    const after = await ok<{ jobs: DeadJob[] }>('jobs.list', { kind: 'route.reconcile' }, admin)
    expect(after.jobs.find((row) => row.id === dead?.id)?.state).toBe('succeeded')
  })

  it('should take a removed route off the node and delete its row once the node confirms', async () => {
    const kept = await openRaw(6000)
    const gone = await openRaw(6001)
    const httpRoute = await attachHostname('gone.example.com')
    await drainJobs(sent, 'route.')
    await ok('routes.remove', { id: gone.id }, admin)
    const database = db(workerEnv.DB)
    const removal = await removeRoute(database, httpRoute)
    const [first, ...rest] = removal.writes
    if (first) await database.batch([first, ...rest])
    await enqueueReconcile(workerEnv, removal.nodeId)
    expect((await routes()).filter((r) => r.status === 'removed')).toHaveLength(2)
    await drainJobs(sent, 'route.')
    expect(agent.applies().at(-1)).toEqual({
      configVersion: 5,
      vhosts: [],
      forwards: [{ listenPort: 6000, proto: 'tcp', upstream: '10.0.0.5:80' }],
    })
    expect((await routes()).map((r) => r.id)).toEqual([kept.id])
  })
})

describe('per-entry outcomes', () => {
  it('should turn only the forward the node cannot bind error, with the reason, and keep applying later changes', async () => {
    agent.takenPorts.add(8000)
    const taken = await openRaw(8000)
    const free = await openRaw(8001)
    const vhost = await attachHostname('entries.example.com')
    await drainJobs(sent, 'route.')
    const byId = async () => new Map((await routes()).map((r) => [r.id, r]))
    let rows = await byId()
    expect(rows.get(taken.id)).toMatchObject({
      status: 'error',
      edgeConfig: {
        error: 'cannot listen on tcp/8000: listen EADDRINUSE: address already in use 0.0.0.0:8000',
      },
    })
    expect(rows.get(free.id)).toMatchObject({
      status: 'active',
      edgeConfig: { appliedVersion: 3, error: null },
    })
    expect(rows.get(vhost)).toMatchObject({
      status: 'active',
      edgeConfig: { appliedVersion: 3, error: null },
    })
    // A later route applies beside the one in error, which the node keeps trying.
    const later = await openRaw(8002)
    await drainJobs(sent, 'route.')
    rows = await byId()
    expect(rows.get(later.id)).toMatchObject({ status: 'active', edgeConfig: { appliedVersion: 4 } })
    expect(rows.get(taken.id)?.status).toBe('error')
    expect(
      agent
        .applies()
        .at(-1)
        ?.forwards.map((forward) => forward.listenPort),
    ).toEqual([8000, 8001, 8002])
    // Once the port is free, pushing again serves it.
    agent.takenPorts.delete(8000)
    await ok('routes.reconcile', { id: taken.id }, admin)
    await drainJobs(sent, 'route.')
    expect((await byId()).get(taken.id)).toMatchObject({
      status: 'active',
      edgeConfig: { appliedVersion: 5, error: null },
    })
  })

  it('should record the same outcomes when the answer to one version arrives twice', async () => {
    agent.takenPorts.add(8100)
    await openRaw(8100)
    await drainJobs(sent, 'route.')
    // As if the agent's first answer was lost on the way: the retry gets the answer for the version it serves.
    await db(workerEnv.DB)
      .update(nodeEdgeVersions)
      .set({ applied: 0 })
      .where(eq(nodeEdgeVersions.nodeId, nodeId))
    await runJob({ type: 'route.reconcile', nodeId, version: 1 })
    expect((await routes()).map((r) => [r.status, r.edgeConfig.error])).toEqual([
      ['error', expect.stringContaining('cannot listen on tcp/8100')],
    ])
  })

  it('should take every entry as served from an agent that reports no per-entry outcomes', async () => {
    agent.perEntry = false
    agent.takenPorts.add(8200)
    await openRaw(8200)
    await drainJobs(sent, 'route.')
    expect((await routes()).map((r) => [r.status, r.edgeConfig.error])).toEqual([['active', null]])
  })
})

describe('route sweep', () => {
  it('should queue the newest version again for a node whose reconcile chain was lost', async () => {
    await openRaw(7000)
    sent.length = 0
    const database = db(workerEnv.DB)
    await database
      .update(nodeEdgeVersions)
      .set({ updatedAt: new Date(Date.now() - 2 * 60 * 60 * 1000) })
      .where(eq(nodeEdgeVersions.nodeId, nodeId))
    await runCron(routeSweepTask.schedule)
    expect(sent.map((job) => job.body)).toContainEqual({ type: 'route.reconcile', nodeId, version: 1 })
    await drainJobs(sent, 'route.')
    expect((await routes()).map((r) => r.status)).toEqual(['active'])
  })
})

import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { db } from '../src/db/client'
import { nodeEdgeChanges } from '../src/db/schema/routes'
import type { Env } from '../src/env'
import { addHttpRoute, enqueueReconcile, removeRoute } from '../src/routes/http-route'
import { routeReconcileJob } from '../src/routes/reconcile-job'
import { siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import { type Caller, ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'
import { adminSession } from './helpers/principals'

// Contract v2's delta additions (src/agent-contract/edge-changes.ts): the panel sends an agent 0.4.0 what changed
// since the version it serves, the whole state (in parts when large) when it is elsewhere, and an agent before
// 0.4.0 the whole state at /v2/edge/apply as before.

interface RouteRow {
  id: string
  kind: string
  hostname: string | null
  status: string
  edgeConfig: { appliedVersion: number | null; error: string | null }
}

const workerEnv = env as unknown as Env
const database = db(workerEnv.DB)
let admin: Caller
let sent: SentJob[]
let agent: FakeNodeAgent
let nodeId: string
let siteId: string
let instanceId: string
let zone: string

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  const site = await siteWithToken(admin)
  ;({ nodeId, siteId, instanceId } = site)
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
  agent.deltas = true
  zone = `${crypto.randomUUID().slice(0, 8)}.example.com`
})

const routes = () => ok<RouteRow[]>('routes.listForInstance', { instanceId }, admin)
const openRaw = (listenPort: number, targetPort = 80) =>
  ok<RouteRow>('routes.createRaw', { instanceId, siteId, listenPort, targetPort, proto: 'tcp' }, admin)
/** A hostname of this test's own zone (live routes hold a hostname once across all nodes). */
const host = (label: string) => `${label}.${zone}`
const vhost = (label: string) => ({
  hostname: host(label),
  upstream: '10.0.0.5:80',
  issuer: 'pebble',
  issuable: false,
})
const paths = () => agent.calls.map((call) => call.path)

async function attach(label: string): Promise<string> {
  const added = await addHttpRoute(database, { siteId, hostname: host(label), issuer: 'pebble' })
  const [first, ...rest] = added.writes
  if (first) await database.batch([first, ...rest])
  await enqueueReconcile(workerEnv, added.nodeId)
  return added.routeId
}

async function detach(routeId: string): Promise<void> {
  const removal = await removeRoute(database, routeId)
  const [first, ...rest] = removal.writes
  if (first) await database.batch([first, ...rest])
  await enqueueReconcile(workerEnv, removal.nodeId)
}

const logged = () => database.select().from(nodeEdgeChanges).where(eq(nodeEdgeChanges.nodeId, nodeId))

describe('changes on the applied version', () => {
  it('should send a new node its whole state, then each change alone: upserts and removals', async () => {
    const raw = await openRaw(2222, 22)
    const first = await attach('a')
    await drainJobs(sent, 'route.')
    expect(paths()).toEqual(['/v2/edge/apply'])
    expect(agent.edge.configVersion).toBe(2)

    const second = await attach('b')
    await drainJobs(sent, 'route.')
    await detach(first)
    await ok('routes.remove', { id: raw.id }, admin)
    await drainJobs(sent, 'route.')
    expect(paths()).toEqual(['/v2/edge/apply', '/v2/edge/changes', '/v2/edge/changes'])
    const [upsert, removal] = agent.changeSets()
    expect(upsert).toEqual({
      baseVersion: 2,
      configVersion: 3,
      vhosts: [vhost('b')],
      removeHostnames: [],
      forwards: [],
      removeForwards: [],
    })
    // Two changes before the reconcile ran: one body with both, on the version the node serves.
    expect(removal).toEqual({
      baseVersion: 3,
      configVersion: 5,
      vhosts: [],
      removeHostnames: [host('a')],
      forwards: [],
      removeForwards: [{ listenPort: 2222, proto: 'tcp' }],
    })
    expect(agent.edge).toEqual({ configVersion: 5, vhosts: [vhost('b')], forwards: [] })
    expect((await routes()).map((r) => [r.id, r.status, r.edgeConfig.appliedVersion])).toEqual([
      [second, 'active', 3],
    ])
    expect(await logged()).toEqual([])
  })

  it('should send the whole state, in the same attempt, to an agent that serves another version (409)', async () => {
    await attach('kept')
    await drainJobs(sent, 'route.')
    // The agent restarted from an empty state.
    agent.edge = { configVersion: 0, vhosts: [], forwards: [] }
    const added = await attach('new')
    const job = sent.find((message) => message.body.type === 'route.reconcile')?.body
    if (!job) throw new Error('no reconcile queued')
    expect(await runJob(job)).toEqual({ acked: true, retryDelay: null })
    expect(paths()).toEqual(['/v2/edge/apply', '/v2/edge/changes', '/v2/edge/apply'])
    expect(agent.edge).toEqual({
      configVersion: 2,
      vhosts: [vhost('kept'), vhost('new')],
      forwards: [],
    })
    expect((await routes()).find((r) => r.id === added)).toMatchObject({
      status: 'active',
      edgeConfig: { appliedVersion: 2 },
    })
  })

  it('should send the whole state at /v2/edge/apply to an agent before 0.4.0 (404), exactly as before', async () => {
    agent.deltas = false
    await openRaw(2300)
    await attach('old')
    await drainJobs(sent, 'route.')
    await attach('older')
    await drainJobs(sent, 'route.')
    expect(paths()).toEqual(['/v2/edge/apply', '/v2/edge/changes', '/v2/edge/apply'])
    expect(agent.applies().at(-1)).toEqual({
      configVersion: 3,
      vhosts: [vhost('old'), vhost('older')],
      forwards: [{ listenPort: 2300, proto: 'tcp', upstream: '10.0.0.5:80' }],
    })
    expect((await routes()).map((r) => [r.status, r.edgeConfig.appliedVersion])).toEqual([
      ['active', 3],
      ['active', 3],
      ['active', 3],
    ])
  })

  it('should take a redelivered job after a lost answer: the agent answers the version it serves', async () => {
    await attach('first')
    await drainJobs(sent, 'route.')
    const added = await attach('lost')
    const job = sent.find((message) => message.body.type === 'route.reconcile')?.body
    if (!job) throw new Error('no reconcile queued')
    agent.loseAnswers = true
    expect((await runJob(job, 1)).acked).toBe(false)
    expect(agent.edge.configVersion).toBe(2)
    expect((await routes()).find((r) => r.id === added)?.status).toBe('pending')
    agent.loseAnswers = false
    expect(await runJob(job, 2)).toEqual({ acked: true, retryDelay: null })
    expect((await routes()).find((r) => r.id === added)).toMatchObject({
      status: 'active',
      edgeConfig: { appliedVersion: 2, error: null },
    })
    // Once recorded, one more delivery sends nothing.
    expect(await runJob(job, 3)).toEqual({ acked: true, retryDelay: null })
    expect(paths()).toEqual(['/v2/edge/apply', '/v2/edge/changes', '/v2/edge/changes'])
    expect(agent.edge.vhosts).toEqual([vhost('first'), vhost('lost')])
  })

  it("should send everything for a change that names no entry (an operator's push again)", async () => {
    const raw = await openRaw(2400)
    await attach('all')
    await drainJobs(sent, 'route.')
    await ok('routes.reconcile', { id: raw.id }, admin)
    await drainJobs(sent, 'route.')
    expect(paths()).toEqual(['/v2/edge/apply', '/v2/edge/apply'])
    expect(agent.applies().at(-1)?.configVersion).toBe(3)
  })
})

describe('per-entry outcomes of a delta', () => {
  it('should turn the changed entry the node cannot serve error and leave the others as they were', async () => {
    const served = await openRaw(2600)
    await drainJobs(sent, 'route.')
    agent.takenPorts.add(2601)
    const taken = await openRaw(2601)
    await drainJobs(sent, 'route.')
    expect(paths()).toEqual(['/v2/edge/apply', '/v2/edge/changes'])
    const rows = new Map((await routes()).map((r) => [r.id, r]))
    expect(rows.get(taken.id)).toMatchObject({
      status: 'error',
      edgeConfig: { error: expect.stringContaining('cannot listen on tcp/2601') },
    })
    expect(rows.get(served.id)).toMatchObject({ status: 'active', edgeConfig: { appliedVersion: 1 } })
  })
})

describe('the whole state in parts', () => {
  it('should send more vhosts than a body holds in parts, forwards in the first, and apply them whole', async () => {
    await openRaw(2500)
    for (const name of ['e', 'c', 'a', 'd', 'b']) await attach(name)
    sent.length = 0
    const job = { type: 'route.reconcile' as const, nodeId, version: 6 }
    expect(await routeReconcileJob(job, workerEnv, 1, 2)).toEqual({ kind: 'done' })
    expect(paths()).toEqual(['/v2/edge/parts', '/v2/edge/parts', '/v2/edge/parts'])
    expect(
      agent.partsSent().map((part) => [part.part, part.parts, part.vhosts.length, part.forwards.length]),
    ).toEqual([
      [0, 3, 2, 1],
      [1, 3, 2, 0],
      [2, 3, 1, 0],
    ])
    expect(agent.edge.configVersion).toBe(6)
    expect(agent.edge.vhosts.map((v) => v.hostname)).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((name) => host(name)),
    )
    expect((await routes()).map((r) => r.status)).toEqual(Array(6).fill('active'))
  })

  it('should send an agent before 0.4.0 the whole state in one apply when it refuses the parts', async () => {
    agent.deltas = false
    for (const name of ['x', 'y', 'z']) await attach(name)
    sent.length = 0
    expect(await routeReconcileJob({ type: 'route.reconcile', nodeId, version: 3 }, workerEnv, 1, 2)).toEqual(
      {
        kind: 'done',
      },
    )
    expect(paths()).toEqual(['/v2/edge/parts', '/v2/edge/apply'])
    expect(agent.applies()[0]?.vhosts.map((v) => v.hostname)).toEqual(
      ['x', 'y', 'z'].map((name) => host(name)),
    )
  })
})

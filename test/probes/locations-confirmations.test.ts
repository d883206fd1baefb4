import { runDurableObjectAlarm } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunCheckRequest } from '../../src/agent-contract/checks'
import { judgeRound } from '../../src/probes/locations/round'
import { FakeNodeAgent } from '../fakes/node-agent'
import { FIXTURE_AGENT_SECRET, reportCheckResult } from '../helpers/agent-callback'
import { type Caller, call, ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { type ProbeDetail, workerEnv } from './catalogue-fixture'

// config.confirmations: how many of a probe's locations must fail in one round before the round counts as a
// failure (down); fewer failing make it degraded. Absent: all of them, the rule before the key existed.

let admin: Caller
let nodeCount = 0

beforeAll(async () => {
  admin = await adminSession()
})

interface TestNode {
  id: string
  name: string
  agent: FakeNodeAgent
}

async function node(): Promise<TestNode> {
  const n = ++nodeCount
  const agentUrl = `https://agent-${n}.confirmations-example.com`
  const row = await ok<{ id: string; name: string }>(
    'nodes.create',
    {
      name: `confirm-node-${n}-${crypto.randomUUID().slice(0, 8)}`,
      agentUrl,
      agentSecret: FIXTURE_AGENT_SECRET,
      checkAllowCidrs: ['10.0.0.0/8'],
    },
    admin,
  )
  return { ...row, agent: new FakeNodeAgent(agentUrl, FIXTURE_AGENT_SECRET).install() }
}

const three = async () => [await node(), await node(), await node()] as const

type Detail = ProbeDetail & {
  location: string | string[] | null
  lastResult: { outcome: string; detail: string } | null
}

function createInput(nodes: readonly TestNode[], config: Record<string, unknown>) {
  return {
    name: `confirmed ${crypto.randomUUID().slice(0, 8)}`,
    type: 'tcp',
    targetKind: 'external',
    target: '10.0.0.7:5432',
    location: nodes.map((n) => n.id),
    config: { failureThreshold: 1, ...config },
  }
}

const create = (nodes: readonly TestNode[], config: Record<string, unknown> = {}) =>
  ok<Detail>('probes.create', createInput(nodes, config), admin)
const get = (id: string) => ok<Detail>('probes.get', { id }, admin)

async function check(probeId: string, scheduledAt: number): Promise<void> {
  expect((await runJob({ type: 'probe.check', probeId, scheduledAt })).acked).toBe(true)
}

function lastRun(n: TestNode): RunCheckRequest {
  const run = n.agent.checkRuns().at(-1)
  if (!run) throw new Error(`node ${n.name} was asked to run nothing`)
  return run
}

async function answer(n: TestNode, outcome: 'up' | 'down') {
  const run = lastRun(n)
  const posted = await reportCheckResult(n.id, {
    probeId: run.probeId,
    scheduledAt: run.scheduledAt,
    location: run.location,
    outcome,
    latencyMs: outcome === 'up' ? 9 : null,
    detail: outcome === 'up' ? 'connected' : 'connection refused',
  })
  expect(posted.status, posted.text).toBe(200)
}

/** One round in which the first `failing` of the nodes fail and the rest answer up. */
async function round(probeId: string, nodes: readonly TestNode[], failing: number, at: number) {
  await check(probeId, at)
  for (const [i, n] of nodes.entries()) await answer(n, i < failing ? 'down' : 'up')
}

describe('confirmations from several locations', () => {
  it('should go down when 2 of 3 fail with confirmations 2, and only degrade when 1 of 3 does', async () => {
    const nodes = await three()
    const probe = await create(nodes, { confirmations: 2 })
    expect(probe.config.confirmations).toBe(2)
    const start = Date.now()
    await round(probe.id, nodes, 1, start)
    expect(await get(probe.id)).toMatchObject({
      state: 'degraded',
      lastResult: { outcome: 'degraded', detail: expect.stringMatching(/^1 of 3 locations failed — /) },
    })
    await round(probe.id, nodes, 2, start + 60_000)
    expect(await get(probe.id)).toMatchObject({
      state: 'down',
      lastResult: { outcome: 'down', detail: expect.stringMatching(/^2 of 3 locations failed — /) },
    })
  })

  it('should keep the rule of before when confirmations is not set: down only when all locations fail', async () => {
    const nodes = await three()
    const probe = await create(nodes)
    expect(probe.config).not.toHaveProperty('confirmations')
    const start = Date.now()
    await round(probe.id, nodes, 2, start)
    expect((await get(probe.id)).state).toBe('degraded')
    await round(probe.id, nodes, 3, start + 60_000)
    expect(await get(probe.id)).toMatchObject({
      state: 'down',
      lastResult: { detail: expect.stringMatching(/^all 3 locations failed — /) },
    })
  })

  it('should count a location that never answers as failed: with one failure it confirms down', async () => {
    const nodes = await three()
    const [a, b, c] = nodes
    const probe = await create(nodes, { confirmations: 2, timeoutMs: 5000 })
    await check(probe.id, Date.now())
    await answer(a, 'down')
    await answer(b, 'up')
    expect((await get(probe.id)).state).toBe('paused')
    // Node c's answer is lost: the monitor's alarm stands for the round's deadline.
    expect(await runDurableObjectAlarm(workerEnv.PROBE_MONITOR.getByName(probe.id))).toBe(true)
    expect(await get(probe.id)).toMatchObject({
      state: 'down',
      lastResult: {
        detail: expect.stringContaining(`2 of 3 locations failed — `),
      },
    })
    expect((await get(probe.id)).lastResult?.detail).toContain(`node ${c.name}: did not answer within 20 s`)
    // Its late answer finds no round waiting.
    const run = lastRun(c)
    const late = await reportCheckResult(c.id, {
      probeId: run.probeId,
      scheduledAt: run.scheduledAt,
      location: run.location,
      outcome: 'up',
      latencyMs: 5,
      detail: 'connected',
    })
    expect(late.status).toBe(409)
  })

  it('should refuse more confirmations than locations with 422 naming config.confirmations, writing nothing', async () => {
    const nodes = await three()
    const input = createInput(nodes.slice(0, 2), { confirmations: 3 })
    const tooMany = await call('probes.create', input, admin)
    expect(tooMany.status, tooMany.text).toBe(422)
    expect(tooMany.body).toMatchObject({
      code: 'unprocessable',
      issues: [{ path: 'config.confirmations', message: expect.stringContaining('2 locations') }],
    })
    const stored = await workerEnv.DB.prepare('select count(*) as n from probes where name = ?')
      .bind(input.name)
      .first<{ n: number }>()
    expect(stored?.n).toBe(0)

    const probe = await create(nodes, { confirmations: 3 })
    const fewer = await call('probes.update', { id: probe.id, location: [nodes[0].id, nodes[1].id] }, admin)
    expect(fewer.status, fewer.text).toBe(422)
    expect(fewer.body).toMatchObject({ issues: [{ path: 'config.confirmations' }] })
    expect((await get(probe.id)).location).toHaveLength(3)
    // Dropping the key (null) goes back to all, which fits any number of locations.
    const all = await ok<Detail>(
      'probes.update',
      { id: probe.id, location: [nodes[0].id, nodes[1].id], config: { confirmations: null } },
      admin,
    )
    expect(all.config).not.toHaveProperty('confirmations')
    // Out of 1..5, or on a heartbeat, it is an ordinary 400.
    const zero = await call('probes.update', { id: probe.id, config: { confirmations: 0 } }, admin)
    expect(zero.status).toBe(400)
    expect(zero.body).toMatchObject({ issues: [{ path: 'config.confirmations' }] })
    const heartbeat = await call(
      'probes.create',
      { name: 'hb', type: 'heartbeat', targetKind: 'external', target: 'job', config: { confirmations: 1 } },
      admin,
    )
    expect(heartbeat.status).toBe(400)
  })
})

describe('what a judged round hands the monitor', () => {
  it('should keep each location with its own verdict, and the location of a lone one', () => {
    const place = (key: string, outcome: 'up' | 'down' | null) => ({
      key,
      kind: 'node' as const,
      label: `node ${key}`,
      verdict: outcome && { outcome, latencyMs: outcome === 'up' ? 7 : null, detail: outcome },
    })
    const round = {
      checkId: 'p:1',
      at: 1000,
      deadline: 26_000,
      places: [place('a', 'down'), place('b', null)],
    }
    expect(judgeRound(round, 1)).toMatchObject({
      outcome: 'down',
      location: null,
      places: [
        { location: 'a', outcome: 'down', detail: 'down' },
        { location: 'b', outcome: 'down', detail: 'did not answer within 25 s' },
      ],
    })
    expect(judgeRound({ ...round, places: [place('edge', 'up')] })).toMatchObject({
      location: 'edge',
      places: [{ location: 'edge', outcome: 'up', latencyMs: 7 }],
    })
  })
})

import { runDurableObjectAlarm } from 'cloudflare:test'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunCheckRequest } from '../../src/agent-contract/checks'
import { FakeNodeAgent } from '../fakes/node-agent'
import { callbackHeaders, FIXTURE_AGENT_SECRET, reportCheckResult } from '../helpers/agent-callback'
import { type Caller, ok, send } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'
import { type ProbeDetail, STATUS_ORIGIN, workerEnv } from './catalogue-fixture'

// Checks run from nodes: the panel asks each node's agent (signed) to run the check, the agent posts the verdict
// back (signed, each request once), and the probe's monitor judges the round once every location answered or
// the check's timeout + 15 s passed. Several locations: degraded while some fail, down when all do.

const RESULTS_PATH = '/api/agent/v2/check-results'

let admin: Caller
let nodeCount = 0
let edgeStatus = 200

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  edgeStatus = 200
  fakeOrigin(STATUS_ORIGIN, () => new Response('ok', { status: edgeStatus }))
})

interface TestNode {
  id: string
  name: string
  agent: FakeNodeAgent
}

async function node(): Promise<TestNode> {
  const n = ++nodeCount
  const agentUrl = `https://agent-${n}.results-example.com`
  const row = await ok<{ id: string; name: string }>(
    'nodes.create',
    {
      name: `results-node-${n}-${crypto.randomUUID().slice(0, 8)}`,
      agentUrl,
      agentSecret: FIXTURE_AGENT_SECRET,
      // The probes here check a private address, which the node rule lets a node reach once it opens the range.
      checkAllowCidrs: ['10.0.0.0/8'],
    },
    admin,
  )
  return { ...row, agent: new FakeNodeAgent(agentUrl, FIXTURE_AGENT_SECRET).install() }
}

type Detail = ProbeDetail & {
  location: string | string[] | null
  lastResult: { outcome: string; latencyMs: number | null; detail: string } | null
}

async function locatedProbe(location: string | string[], config: Record<string, unknown> = {}) {
  return ok<Detail>(
    'probes.create',
    {
      name: `from nodes ${crypto.randomUUID().slice(0, 8)}`,
      type: 'tcp',
      targetKind: 'external',
      target: '10.0.0.7:5432',
      location,
      config: { failureThreshold: 1, ...config },
    },
    admin,
  )
}

const get = (id: string) => ok<Detail>('probes.get', { id }, admin)

/** Runs the probe's scheduled check through the real queue handler. */
async function check(probeId: string, scheduledAt: number): Promise<void> {
  expect((await runJob({ type: 'probe.check', probeId, scheduledAt })).acked).toBe(true)
}

/** The node's verdict for the run it was asked for. */
function verdictFor(run: RunCheckRequest, outcome: 'up' | 'down' | 'degraded', detail: string) {
  return {
    probeId: run.probeId,
    scheduledAt: run.scheduledAt,
    location: run.location,
    outcome,
    latencyMs: outcome === 'down' ? null : 12,
    detail,
  }
}

function lastRun(n: TestNode): RunCheckRequest {
  const run = n.agent.checkRuns().at(-1)
  if (!run) throw new Error(`node ${n.name} was asked to run nothing`)
  return run
}

describe('a check located on one node', () => {
  it('should ask the node, signed, and record the result it posts back like an edge result', async () => {
    const a = await node()
    const probe = await locatedProbe(a.id)
    const scheduledAt = Date.now()
    await check(probe.id, scheduledAt)
    // The fake agent verified the panel's signature for this call; the check carries what the node needs.
    expect(a.agent.checkRuns()).toEqual([
      {
        probeId: probe.id,
        scheduledAt,
        location: a.id,
        check: { type: 'tcp', target: '10.0.0.7:5432', timeoutMs: 10_000 },
        allowCidrs: ['10.0.0.0/8'],
      },
    ])
    expect((await get(probe.id)).state).toBe('paused')
    const posted = await reportCheckResult(a.id, verdictFor(lastRun(a), 'up', 'connected'))
    expect(posted.status, posted.text).toBe(200)
    expect(posted.body).toEqual({ recorded: true })
    const read = await get(probe.id)
    expect(read).toMatchObject({
      state: 'up',
      lastResult: { outcome: 'up', latencyMs: 12, detail: `node ${a.name}: connected` },
    })
    expect(read.events[0]).toMatchObject({
      previousState: 'paused',
      state: 'up',
      detail: `node ${a.name}: connected`,
    })
    // The same result posted again (freshly signed) finds no check waiting for it.
    const again = await reportCheckResult(a.id, verdictFor(lastRun(a), 'up', 'connected'))
    expect(again.status, again.text).toBe(409)
  })

  it('should count a node that does not answer within the timeout + 15 s as failed, saying so', async () => {
    const a = await node()
    const probe = await locatedProbe(a.id, { timeoutMs: 5000 })
    await check(probe.id, Date.now())
    expect(a.agent.checkRuns()).toHaveLength(1)
    const monitor = workerEnv.PROBE_MONITOR.getByName(probe.id)
    // The monitor's alarm stands for the round's deadline (it runs early here, as of that moment).
    expect(await runDurableObjectAlarm(monitor)).toBe(true)
    const read = await get(probe.id)
    expect(read).toMatchObject({
      state: 'down',
      lastResult: { outcome: 'down', latencyMs: null, detail: `node ${a.name}: did not answer within 20 s` },
    })
    // The answer that comes after the deadline changes nothing.
    const late = await reportCheckResult(a.id, verdictFor(lastRun(a), 'up', 'connected'))
    expect(late.status, late.text).toBe(409)
    expect((await get(probe.id)).state).toBe('down')
  })

  it('should fail the location at once when the node cannot be asked', async () => {
    const a = await node()
    const probe = await locatedProbe(a.id)
    a.agent.down = true
    await check(probe.id, Date.now())
    const read = await get(probe.id)
    expect(read.state).toBe('down')
    expect(read.lastResult?.detail).toMatch(new RegExp(`^node ${a.name}: did not take the check: `))
  })

  it('should ask again only the locations still waiting when the job is retried, and none once judged', async () => {
    const a = await node()
    const probe = await locatedProbe(a.id)
    const scheduledAt = Date.now()
    await check(probe.id, scheduledAt)
    await check(probe.id, scheduledAt)
    expect(a.agent.checkRuns()).toHaveLength(2)
    expect((await reportCheckResult(a.id, verdictFor(lastRun(a), 'up', 'connected'))).status).toBe(200)
    await check(probe.id, scheduledAt)
    expect(a.agent.checkRuns()).toHaveLength(2)
    expect((await get(probe.id)).state).toBe('up')
  })

  it('should run a sub-minute probe from its own alarm through the node', async () => {
    const a = await node()
    const probe = await locatedProbe(a.id, { intervalSeconds: 20 })
    for (let i = 0; i < 50 && a.agent.checkRuns().length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const posted = await reportCheckResult(a.id, verdictFor(lastRun(a), 'up', 'connected'))
    expect(posted.status, posted.text).toBe(200)
    expect((await get(probe.id)).state).toBe('up')
    await ok('probes.archive', { id: probe.id }, admin)
  })
})

describe('a check located on several places', () => {
  it('should be degraded while some locations fail and down when all do', async () => {
    const [a, b] = [await node(), await node()]
    const http = await ok<Detail>(
      'probes.create',
      {
        name: `http from three ${crypto.randomUUID().slice(0, 8)}`,
        type: 'http',
        targetKind: 'external',
        target: `${STATUS_ORIGIN}/`,
        location: ['edge', a.id, b.id],
        config: { failureThreshold: 1 },
      },
      admin,
    )
    const first = Date.now()
    await check(http.id, first)
    expect(lastRun(a).check).toMatchObject({
      type: 'http',
      target: `${STATUS_ORIGIN}/`,
      method: 'GET',
      expectedStatus: { min: 200, max: 399 },
    })
    await reportCheckResult(a.id, verdictFor(lastRun(a), 'up', 'HTTP 200'))
    expect((await get(http.id)).state).toBe('paused')
    await reportCheckResult(b.id, verdictFor(lastRun(b), 'down', 'request failed: connection refused'))
    expect(await get(http.id)).toMatchObject({
      state: 'degraded',
      lastResult: {
        outcome: 'degraded',
        latencyMs: expect.any(Number),
        detail: `1 of 3 locations failed — edge: HTTP 200; node ${a.name}: HTTP 200; node ${b.name}: request failed: connection refused`,
      },
    })

    edgeStatus = 503
    await check(http.id, first + 60_000)
    await reportCheckResult(a.id, verdictFor(lastRun(a), 'down', 'HTTP 503 (expected 200–399)'))
    await reportCheckResult(b.id, verdictFor(lastRun(b), 'down', 'request failed: connection refused'))
    const down = await get(http.id)
    expect(down.state).toBe('down')
    expect(down.lastResult?.detail).toMatch(/^all 3 locations failed — edge: HTTP 503 \(expected 200–399\); /)
    expect(down.events.map((event) => event.state)).toEqual(['down', 'degraded'])
  })

  it('should judge rounds in the order they were scheduled: a late node holds a younger round back', async () => {
    const [a, b] = [await node(), await node()]
    const probe = await locatedProbe([a.id, b.id])
    const first = Date.now()
    await check(probe.id, first)
    const firstRuns = [lastRun(a), lastRun(b)] as const
    await reportCheckResult(a.id, verdictFor(firstRuns[0], 'up', 'connected'))
    await check(probe.id, first + 60_000)
    await reportCheckResult(a.id, verdictFor(lastRun(a), 'down', 'connect timed out after 10000 ms'))
    await reportCheckResult(b.id, verdictFor(lastRun(b), 'down', 'connect timed out after 10000 ms'))
    // The second round is complete, but the first still waits for node b.
    expect((await get(probe.id)).state).toBe('paused')
    expect(await runDurableObjectAlarm(workerEnv.PROBE_MONITOR.getByName(probe.id))).toBe(true)
    const read = await get(probe.id)
    expect(read.state).toBe('down')
    expect(read.events.map((event) => [event.state, event.detail])).toEqual([
      ['down', expect.stringMatching(/^all 2 locations failed — /)],
      [
        'degraded',
        `1 of 2 locations failed — node ${a.name}: connected; node ${b.name}: did not answer within 25 s`,
      ],
    ])
  })
})

describe('who may post a result', () => {
  it('should refuse a forged, an altered or a replayed result with 401, and change nothing', async () => {
    const a = await node()
    const probe = await locatedProbe(a.id)
    await check(probe.id, Date.now())
    const body = JSON.stringify(verdictFor(lastRun(a), 'up', 'connected'))
    const forged = await callbackHeaders(
      a.id,
      { method: 'POST', path: RESULTS_PATH, body },
      'not-the-agent-secret',
    )
    expect((await send(RESULTS_PATH, { method: 'POST', headers: forged, body })).status).toBe(401)
    const signed = await callbackHeaders(a.id, { method: 'POST', path: RESULTS_PATH, body })
    const altered = body.replace('"up"', '"degraded"')
    expect((await send(RESULTS_PATH, { method: 'POST', headers: signed, body: altered })).status).toBe(401)
    expect((await get(probe.id)).state).toBe('paused')
    const first = await send(RESULTS_PATH, { method: 'POST', headers: signed, body })
    expect(first.status, first.text).toBe(200)
    const replayed = await send(RESULTS_PATH, { method: 'POST', headers: signed, body })
    expect(replayed.status).toBe(401)
    expect(replayed.text).toContain('already received')
  })

  it('should refuse a node posting for a probe not checked from it, or in another node’s name, with 403', async () => {
    const [a, b] = [await node(), await node()]
    const probe = await locatedProbe(a.id)
    await check(probe.id, Date.now())
    const run = lastRun(a)
    const asItself = await reportCheckResult(b.id, { ...verdictFor(run, 'down', 'refused'), location: b.id })
    expect(asItself.status, asItself.text).toBe(403)
    const asOther = await reportCheckResult(b.id, verdictFor(run, 'down', 'refused'))
    expect(asOther.status, asOther.text).toBe(403)
    expect((await get(probe.id)).state).toBe('paused')
    // The node the probe checks from still may.
    expect((await reportCheckResult(a.id, verdictFor(run, 'up', 'connected'))).status).toBe(200)
    expect((await get(probe.id)).state).toBe('up')
  })
})

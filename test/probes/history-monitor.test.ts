import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { and, eq } from 'drizzle-orm'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ProbeMonitor } from '../../durable-objects/probe-monitor'
import { db } from '../../src/db/client'
import { probeResults, probeRollups } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import type { CheckOutcome, CheckResult, MonitorSnapshot } from '../../src/probes/monitor/api'
import { toSnapshot } from '../../src/probes/rows'
import { type Caller, call, ok } from '../helpers/http'
import { adminSession } from '../helpers/principals'
import { createProbe, probeRecord, type ResultRow, workerEnv } from './catalogue-fixture'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const database = db(workerEnv.DB)
let admin: Caller

interface HistoryRow extends ResultRow {
  latencyP50Ms: number | null
  latencyP95Ms: number | null
  latencyP99Ms: number | null
  location: string | null
}

beforeAll(async () => {
  admin = await adminSession()
})

afterEach(() => {
  vi.restoreAllMocks()
})

interface Monitored {
  snapshot: MonitorSnapshot
  stub: DurableObjectStub<ProbeMonitor>
}

/** An http probe made through probes.create, and its monitor (the queue consumer's side calls it directly). */
async function monitoredProbe(config: Record<string, unknown> = {}): Promise<Monitored> {
  const created = await createProbe(admin, { config: { intervalSeconds: 60, ...config } })
  const row = await probeRecord(created.id)
  if (!row) throw new Error('no probe row')
  return { snapshot: toSnapshot(row), stub: workerEnv.PROBE_MONITOR.getByName(created.id) }
}

function check(
  snapshot: MonitorSnapshot,
  at: number,
  latencyMs: number | null,
  outcome: CheckOutcome = 'up',
) {
  const result: CheckResult = {
    checkId: `${snapshot.id}:${at}`,
    at,
    outcome,
    latencyMs,
    detail: outcome === 'up' ? 'HTTP 200' : 'HTTP 503',
  }
  return result
}

/** The monitor's own bindings, to count what it sends D1 (the test's env is another object). */
function monitorEnv(stub: DurableObjectStub<ProbeMonitor>): Promise<Env> {
  return runInDurableObject(stub, (instance) => (instance as unknown as { env: Env }).env)
}

/**
 * Every statement that writes D1 and binds `probeId` (other probes' monitors share the binding and flush meanwhile).
 */
function probeWrites(d1: D1Database, probeId: string): string[] {
  const seen: string[] = []
  const prepare = d1.prepare.bind(d1)
  vi.spyOn(d1, 'prepare').mockImplementation((query: string) => {
    const statement = prepare(query)
    const bind = statement.bind.bind(statement)
    statement.bind = (...values: unknown[]) => {
      if (!/^select/i.test(query) && values.includes(probeId)) seen.push(query)
      return bind(...values)
    }
    return statement
  })
  return seen
}

function rollups(probeId: string, granularity: 'hourly' | 'daily') {
  return database
    .select()
    .from(probeRollups)
    .where(and(eq(probeRollups.probeId, probeId), eq(probeRollups.granularity, granularity)))
    .orderBy(probeRollups.bucketStart)
}

function d1Raw(probeId: string) {
  return database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'raw')))
}

/** Runs the monitor's alarms (past-due ones may also run by themselves) until D1's hours count `checks`. */
async function flushedUntil(stub: DurableObjectStub<ProbeMonitor>, probeId: string, checks: number) {
  await vi.waitUntil(
    async () => {
      await runDurableObjectAlarm(stub)
      const hours = await rollups(probeId, 'hourly')
      return hours.reduce((n, r) => n + r.up + r.down + r.degraded, 0) === checks
    },
    { timeout: 10_000, interval: 50 },
  )
}

const history = (id: string, input: Record<string, unknown>) =>
  ok<HistoryRow[]>('probes.history', { id, ...input }, admin)

/** A shuffled copy (a fixed permutation: the order results arrive in must not matter). */
const shuffled = (values: number[]) =>
  values
    .map((v, i) => ({ v, k: (i * 37) % values.length }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.v)

// Two whole days back: every hour and day these tests fill is closed, and within the raw retention.
const DAY_START = Math.floor(Date.now() / DAY) * DAY - 2 * DAY

describe('probe history kept by the monitor', () => {
  it('should write closed hourly and daily rollups with the exact nearest-rank p50/p95/p99 of their raw results', {
    timeout: 30_000,
  }, async () => {
    const { snapshot, stub } = await monitoredProbe()
    const first = DAY_START + 3 * HOUR
    const second = DAY_START + 5 * HOUR
    const firstHour = shuffled(Array.from({ length: 100 }, (_, i) => i + 1))
    for (const [i, latency] of firstHour.entries())
      await stub.applyResult(snapshot, check(snapshot, first + i * 30_000, latency))
    for (let i = 0; i < 20; i++)
      await stub.applyResult(snapshot, check(snapshot, second + i * 60_000, 1000 + i))
    // An untimed failure counts in the hour but in no percentile.
    await stub.applyResult(snapshot, check(snapshot, second + 30 * 60_000, null, 'down'))
    await flushedUntil(stub, snapshot.id, 121)

    const hourly = await rollups(snapshot.id, 'hourly')
    expect(
      hourly.map((r) => [
        r.bucketStart.getTime(),
        r.up,
        r.down,
        r.latencyP50Ms,
        r.latencyP95Ms,
        r.latencyP99Ms,
      ]),
    ).toEqual([
      [first, 100, 0, 50, 95, 99],
      [second, 20, 1, 1009, 1018, 1019],
    ])
    // The /metrics histogram's counts per latency bucket (≤100, 250, 500, 1000, 2500, 5000, 10000 ms).
    expect(hourly.map((r) => r.latencyBuckets)).toEqual(['[100,0,0,0,0,0,0]', '[0,0,0,1,19,0,0]'])
    const [daily] = await rollups(snapshot.id, 'daily')
    expect(daily?.latencyBuckets).toBe('[100,0,0,1,19,0,0]')
    expect(daily).toMatchObject({
      up: 120,
      down: 1,
      latencyP50Ms: 60,
      latencyP95Ms: 1013,
      latencyP99Ms: 1018,
    })

    const rows = await history(snapshot.id, { granularity: 'hourly', hours: 96 })
    expect(rows.map((r) => [r.at, r.checks, r.latencyP50Ms, r.latencyP95Ms, r.latencyP99Ms])).toEqual([
      [new Date(first).toISOString(), 100, 50, 95, 99],
      [new Date(second).toISOString(), 21, 1009, 1018, 1019],
    ])
    const days = await history(snapshot.id, { granularity: 'daily', hours: 96 })
    expect(days).toHaveLength(1)
    expect(days[0]).toMatchObject({
      checks: 121,
      failures: 1,
      latencyP50Ms: 60,
      latencyP95Ms: 1013,
      latencyP99Ms: 1018,
    })
    // No raw row reached D1: the raw history is the monitor's.
    expect(await d1Raw(snapshot.id)).toHaveLength(0)
    const raw = await history(snapshot.id, { granularity: 'raw', hours: 96 })
    expect(raw).toHaveLength(121)
    expect(raw[0]).toMatchObject({
      kind: 'raw',
      at: new Date(first).toISOString(),
      location: 'edge',
      checks: 1,
    })
  })

  it('should touch no D1 for checks that change nothing, and write the hour in one batch once it closed', async () => {
    const { snapshot, stub } = await monitoredProbe()
    // The current hour: its rollups are owed only once it closed, so no alarm is due during the test.
    const hour = Math.floor(Date.now() / HOUR) * HOUR
    await stub.applyResult(snapshot, check(snapshot, hour, 10))
    const writes = probeWrites((await monitorEnv(stub)).DB, snapshot.id)
    for (let i = 1; i <= 40; i++) await stub.applyResult(snapshot, check(snapshot, hour + i * 60_000, 10 + i))
    expect(writes).toEqual([])
    // Until then the history reaches now through the monitor: the hour counts its 41 checks.
    const before = await history(snapshot.id, { granularity: 'hourly', hours: 3 })
    expect(before.map((r) => [r.checks, r.latencyMaxMs])).toEqual([[41, 50]])

    // The alarm stands for its moment: the hour's end, at this probe's offset in the spread.
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    // One batch: the probe row, the hour (with its percentiles) and the day's increments.
    expect(writes.map((query) => query.split(' ').slice(0, 3).join(' '))).toEqual([
      'update "probes" set',
      'insert into "probe_rollups"',
      'insert into "probe_rollups"',
    ])
    const [hourly] = await rollups(snapshot.id, 'hourly')
    expect(hourly).toMatchObject({ up: 41, latencyCount: 41, latencyP50Ms: 30, latencyP99Ms: 50 })
    expect((await probeRecord(snapshot.id))?.lastCheckedAt?.getTime()).toBe(hour + 40 * 60_000)
  })

  it('should count a redelivered result once, and once only after a failed write and a restarted monitor', async () => {
    const { snapshot, stub } = await monitoredProbe()
    const hour = Math.floor(Date.now() / HOUR) * HOUR
    for (let i = 0; i < 10; i++) await stub.applyResult(snapshot, check(snapshot, hour + i * 60_000, 100))
    for (let i = 0; i < 10; i += 3) await stub.applyResult(snapshot, check(snapshot, hour + i * 60_000, 100))
    const monitor = await monitorEnv(stub)
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(monitor.DB, 'batch').mockRejectedValueOnce(new Error('D1 is unavailable'))
    // The first result changed the state (written at once); the other nine wait for the hour to close.
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    expect((await rollups(snapshot.id, 'hourly')).map((r) => r.up)).toEqual([1])
    // A new instance over the same storage (an evicted object woken again) retries the flush.
    await runInDurableObject(stub, async (_, state) => {
      const restarted = new ProbeMonitor(state, monitor)
      await restarted.alarm()
      await restarted.applyResult(snapshot, check(snapshot, hour, 100))
      await restarted.alarm()
    })
    await stub.applyResult(snapshot, check(snapshot, hour + 9 * 60_000, 100))
    await runDurableObjectAlarm(stub)
    expect((await rollups(snapshot.id, 'hourly')).map((r) => [r.up, r.latencyCount])).toEqual([[10, 10]])
    expect((await rollups(snapshot.id, 'daily')).map((r) => r.up)).toEqual([10])
  })

  it('should write a state change to the probe row and its event at once', async () => {
    const { snapshot, stub } = await monitoredProbe({ failureThreshold: 1 })
    const now = Date.now()
    await stub.applyResult(snapshot, check(snapshot, now - 120_000, 12))
    await stub.applyResult(snapshot, check(snapshot, now - 60_000, null, 'down'))
    const row = await probeRecord(snapshot.id)
    expect(row).toMatchObject({ state: 'down', consecutiveFailures: 1 })
    expect(row?.lastCheckedAt?.getTime()).toBe(now - 60_000)
    const list = await ok<{ id: string; state: string }[]>('probes.list', { search: snapshot.name }, admin)
    expect(list.find((p) => p.id === snapshot.id)?.state).toBe('down')
    const events = await database
      .select()
      .from(probeResults)
      .where(and(eq(probeResults.probeId, snapshot.id), eq(probeResults.kind, 'event')))
    expect(events.map((e) => e.state)).toEqual(['up', 'down'])
    expect(await d1Raw(snapshot.id)).toHaveLength(0)
  })

  it('should read raw history per location: each location what it measured, the round its judged result', async () => {
    const { snapshot, stub } = await monitoredProbe()
    const node = crypto.randomUUID()
    const places = [
      { key: 'edge', kind: 'edge' as const, label: 'edge' },
      { key: node, kind: 'node' as const, label: 'node db-1' },
    ]
    const start = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR
    for (let i = 0; i < 3; i++) {
      const at = start + i * 60_000
      const checkId = `${snapshot.id}:${at}`
      const deadline = Date.now() + 600_000
      expect(await stub.openRound(snapshot, { checkId, at, deadline, places })).toEqual(['edge', node])
      await stub.reportLocation(checkId, 'edge', { outcome: 'up', latencyMs: 10 + i, detail: 'HTTP 200' })
      // The node fails the last round: the round is degraded, the node's own history says why.
      const failed = i === 2
      await stub.reportLocation(checkId, node, {
        outcome: failed ? 'down' : 'up',
        latencyMs: failed ? null : 40 + i,
        detail: failed ? 'connect timed out' : 'HTTP 200',
      })
    }
    const window = { granularity: 'raw', hours: 4 }
    const judged = await history(snapshot.id, window)
    expect(judged.map((r) => [r.state, r.location, r.latencyMs])).toEqual([
      ['up', null, 40],
      ['up', null, 41],
      ['degraded', null, 12],
    ])
    const edge = await history(snapshot.id, { ...window, location: 'edge' })
    expect(edge.map((r) => [r.state, r.location, r.latencyMs])).toEqual([
      ['up', 'edge', 10],
      ['up', 'edge', 11],
      ['up', 'edge', 12],
    ])
    const atNode = await history(snapshot.id, { ...window, location: node })
    expect(atNode.map((r) => [r.state, r.latencyMs, r.detail])).toEqual([
      ['up', 40, 'HTTP 200'],
      ['up', 41, 'HTTP 200'],
      ['down', null, 'connect timed out'],
    ])
    // Rollups count the rounds, not the locations.
    const hourly = await history(snapshot.id, { granularity: 'hourly', hours: 4 })
    expect(hourly.map((r) => [r.checks, r.degraded])).toEqual([[3, 1]])
  })

  it('should answer 400 naming location for a rollup granularity, and 404 for an unknown probe', async () => {
    const { snapshot } = await monitoredProbe()
    const res = await call<{ errors: { path: string }[] }>(
      'probes.history',
      { id: snapshot.id, granularity: 'hourly', location: 'edge' },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.text).toContain('location')
    const unknown = await call('probes.history', { id: crypto.randomUUID(), granularity: 'raw' }, admin)
    expect(unknown.status).toBe(404)
  })
})

import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { HISTORY_ISOLATE_TTL_MS } from '../../src/probes/history/cache'
import { pruneProbeHistory } from '../../src/probes/history/prune-cron'
import { readHistory } from '../../src/probes/history/read'
import { type Caller, call, ok } from '../helpers/http'
import { adminSession, tokenFor } from '../helpers/principals'
import { createProbe, type ResultRow, workerEnv } from './catalogue-fixture'

const HOUR = 3_600_000
const DAY = 24 * HOUR
let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

/** `count` hourly (or daily) rollups ending with the bucket that holds `now`: 3 up, 1 down, 400 ms in all. */
async function seedRollups(probeId: string, granularity: 'hourly' | 'daily', count: number, now: number) {
  const size = granularity === 'hourly' ? HOUR : DAY
  const last = Math.floor(now / size) * size
  await workerEnv.DB.prepare(
    `with recursive n(i) as (select 0 union all select i + 1 from n where i < ?4 - 1)
     insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms,
       latency_count, latency_max_ms)
     select ?1, ?2, ?3 - i * ?5, 3, 1, 0, 400, 4, 250 from n`,
  )
    .bind(probeId, granularity, last, count, size)
    .run()
}

/** One raw result a minute for `count` minutes back from `now`, every tenth one down. */
async function seedRaw(probeId: string, count: number, now: number) {
  await workerEnv.DB.prepare(
    `with recursive n(i) as (select 0 union all select i + 1 from n where i < ?2 - 1)
     insert into probe_results (probe_id, kind, at, state, latency_ms, detail)
     select ?1, 'raw', ?3 - i * 60000, case when i % 10 = 0 then 'down' else 'up' end, 100 + i, 'HTTP 200' from n`,
  )
    .bind(probeId, count, now)
    .run()
}

const history = (id: string, input: Record<string, unknown>) =>
  ok<ResultRow[]>('probes.history', { id, ...input }, admin)

const ascending = (rows: ResultRow[]) => rows.every((row, i) => i === 0 || (rows[i - 1]?.at ?? '') < row.at)

describe('probes.history', () => {
  it('should read 2,160 hourly rollups oldest first, about one row read per hour, never the raw table', async () => {
    const probe = await createProbe(admin)
    const now = Date.now()
    await seedRollups(probe.id, 'hourly', 2400, now)
    await seedRaw(probe.id, 3000, now)
    const rows = await history(probe.id, { granularity: 'hourly', hours: 2160 })
    expect(rows).toHaveLength(2160)
    expect(ascending(rows)).toBe(true)
    expect(rows[0]?.at).toBe(new Date(Math.floor(now / HOUR) * HOUR - 2159 * HOUR).toISOString())
    expect(rows[2159]).toEqual({
      probeId: probe.id,
      kind: 'hourly',
      at: new Date(Math.floor(now / HOUR) * HOUR).toISOString(),
      state: null,
      previousState: null,
      upRatio: 7500,
      checks: 4,
      failures: 1,
      degraded: 0,
      latencyMs: 100,
      latencyMaxMs: 250,
      latencyP50Ms: null,
      latencyP95Ms: null,
      latencyP99Ms: null,
      location: null,
      detail: null,
    })
    const read = await readHistory(workerEnv.DB, probe.id, 'hourly', 2160, now)
    expect(read.rows).toHaveLength(2160)
    expect(read.rowsRead).toBeGreaterThanOrEqual(2160)
    expect(read.rowsRead).toBeLessThanOrEqual(2200)
  })

  it('should read daily rollups over the days the window touches', async () => {
    const probe = await createProbe(admin)
    const now = Date.now()
    await seedRollups(probe.id, 'daily', 120, now)
    const rows = await history(probe.id, { granularity: 'daily', hours: 72 })
    expect(rows.length).toBeGreaterThanOrEqual(3)
    expect(rows.length).toBeLessThanOrEqual(4)
    expect(rows.every((row) => row.kind === 'daily')).toBe(true)
    expect(ascending(rows)).toBe(true)
    const read = await readHistory(workerEnv.DB, probe.id, 'daily', 2160, now)
    expect(read.rows).toHaveLength(91)
    expect(read.rowsRead).toBeLessThanOrEqual(100)
  })

  it('should answer raw results of the window oldest first, the latest 1000 at most', async () => {
    const probe = await createProbe(admin)
    const now = Date.now() - 1000
    await seedRaw(probe.id, 1500, now)
    const hour = await history(probe.id, { granularity: 'raw', hours: 1 })
    expect(hour).toHaveLength(60)
    expect(ascending(hour)).toBe(true)
    expect(hour.at(-1)).toMatchObject({ kind: 'raw', state: 'down', upRatio: 0, checks: 1, failures: 1 })
    expect(hour.at(-2)).toMatchObject({ state: 'up', upRatio: 10_000, failures: 0, latencyMs: 101 })
    const capped = await history(probe.id, { granularity: 'raw', hours: 2160 })
    expect(capped).toHaveLength(1000)
    expect(ascending(capped)).toBe(true)
    expect(capped.at(-1)?.at).toBe(new Date(now).toISOString())
  })

  it('should give a single result or event the upRatio of its state: 10000 up, degraded or paused, 0 down or flapping', async () => {
    const probe = await createProbe(admin)
    const now = Date.now() - 60_000
    const states = ['up', 'degraded', 'down', 'flapping', 'paused'] as const
    const insert = workerEnv.DB.prepare(
      'insert into probe_results (probe_id, kind, at, state, previous_state, latency_ms, detail) values (?, ?, ?, ?, ?, ?, ?)',
    )
    await workerEnv.DB.batch([
      ...states.map((state, i) => insert.bind(probe.id, 'event', now + i, state, 'up', null, null)),
      ...['up', 'degraded', 'down'].map((state, i) =>
        insert.bind(probe.id, 'raw', now + i, state, null, 100, 'x'),
      ),
    ])
    const detail = await ok<{ events: ResultRow[] }>('probes.get', { id: probe.id }, admin)
    const events = Object.fromEntries(detail.events.map((event) => [event.state, event]))
    expect(Object.fromEntries(states.map((state) => [state, events[state]?.upRatio]))).toEqual({
      up: 10_000,
      degraded: 10_000,
      down: 0,
      flapping: 0,
      paused: 10_000,
    })
    // An event is no measurement: it counts no check, whatever its upRatio.
    expect(detail.events.every((event) => event.checks === 0 && event.failures === 0)).toBe(true)
    const raw = await history(probe.id, { granularity: 'raw', hours: 1 })
    expect(raw.map((row) => [row.state, row.upRatio, row.checks, row.failures, row.degraded])).toEqual([
      ['up', 10_000, 1, 0, 0],
      ['degraded', 10_000, 1, 0, 1],
      ['down', 0, 1, 1, 0],
    ])
  })

  it('should answer 400 naming hours outside 1..2160', async () => {
    const probe = await createProbe(admin)
    for (const hours of [0, 2161]) {
      const res = await call<{ issues: { path: string }[] }>('probes.history', { id: probe.id, hours }, admin)
      expect(res.status, res.text).toBe(400)
      expect(res.body.issues.map((issue) => issue.path)).toEqual(['hours'])
    }
  })
})

describe('probes.history kept in isolate memory', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('should read the probe and its window in one D1 round trip, then answer again without D1', async () => {
    const probe = await createProbe(admin)
    const now = Date.now()
    await seedRollups(probe.id, 'hourly', 48, now)
    const reader = await tokenFor(admin, ['probes:view'])
    // Its principal is then in this isolate's memory: only the history's own D1 calls are counted.
    await ok('auth.me', {}, reader)
    const batch = vi.spyOn(workerEnv.DB, 'batch')
    const prepare = vi.spyOn(workerEnv.DB, 'prepare')
    const first = await ok<ResultRow[]>('probes.history', { id: probe.id, hours: 48 }, reader)
    expect(first).toHaveLength(48)
    expect(batch).toHaveBeenCalledTimes(1)
    batch.mockClear()
    prepare.mockClear()
    expect(await ok<ResultRow[]>('probes.history', { id: probe.id, hours: 48 }, reader)).toEqual(first)
    expect(batch).not.toHaveBeenCalled()
    expect(prepare).not.toHaveBeenCalled()
  })

  it(`should show rollups flushed meanwhile once ${HISTORY_ISOLATE_TTL_MS} ms have passed`, async () => {
    const probe = await createProbe(admin)
    const now = Date.now()
    await seedRollups(probe.id, 'hourly', 3, now)
    const window = { granularity: 'hourly', hours: 24 }
    expect(await history(probe.id, window)).toHaveLength(3)
    // A flush by a monitor: straight to D1, so this isolate's memory is not told.
    await workerEnv.DB.prepare(
      `insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms,
         latency_count) values (?1, 'hourly', ?2, 1, 0, 0, 0, 0)`,
    )
      .bind(probe.id, Math.floor(now / HOUR) * HOUR - 5 * HOUR)
      .run()
    expect(await history(probe.id, window)).toHaveLength(3)
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + HISTORY_ISOLATE_TTL_MS)
    expect(await history(probe.id, window)).toHaveLength(4)
  })

  it('should keep no answer for an unknown probe: every call reads D1 and answers 404', async () => {
    const id = crypto.randomUUID()
    for (let i = 0; i < 2; i++) {
      const batch = vi.spyOn(workerEnv.DB, 'batch')
      const res = await call<{ code: string }>('probes.history', { id }, admin)
      expect(res.status, res.text).toBe(404)
      expect(res.body.code).toBe('not_found')
      expect(batch).toHaveBeenCalledTimes(1)
      batch.mockRestore()
    }
  })
})

describe('the hourly prune', () => {
  it('should delete raw results after 7 days and hourly rollups after 90, keeping events and daily rollups', async () => {
    const probe = await createProbe(admin)
    const now = Date.now()
    const insert = (kind: string, at: number) =>
      workerEnv.DB.prepare(
        `insert into probe_results (probe_id, kind, at, state, previous_state) values (?1, ?2, ?3, 'up', ?4)`,
      ).bind(probe.id, kind, at, kind === 'event' ? 'paused' : null)
    const rollup = (granularity: string, at: number) =>
      workerEnv.DB.prepare(
        `insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms,
           latency_count) values (?1, ?2, ?3, 1, 0, 0, 0, 0)`,
      ).bind(probe.id, granularity, at)
    await workerEnv.DB.batch([
      insert('raw', now - 8 * DAY),
      insert('raw', now - 6 * DAY),
      insert('event', now - 400 * DAY),
      rollup('hourly', now - 91 * DAY),
      rollup('hourly', now - 89 * DAY),
      rollup('daily', now - 400 * DAY),
    ])
    await pruneProbeHistory(workerEnv, now)
    const left = await workerEnv.DB.prepare(
      `select kind, at from probe_results where probe_id = ?1
       union all select granularity, bucket_start from probe_rollups where probe_id = ?1 order by 1, 2`,
    )
      .bind(probe.id)
      .all<{ kind: string; at: number }>()
    expect(left.results).toEqual([
      { kind: 'daily', at: now - 400 * DAY },
      { kind: 'event', at: now - 400 * DAY },
      { kind: 'hourly', at: now - 89 * DAY },
      { kind: 'raw', at: now - 6 * DAY },
    ])
  })
})

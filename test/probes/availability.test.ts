import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { WEEKDAYS } from '../../src/maintenance/schedule'
import { HOURLY_RETENTION_MS } from '../../src/probes/history/prune-cron'
import { type Caller, call, ok, send } from '../helpers/http'
import { adminSession, tokenFor } from '../helpers/principals'
import { createWindow, once } from '../maintenance/fixture'
import { createStatusPage, quietProbe } from '../status-pages/fixture'
import { workerEnv } from './catalogue-fixture'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** Every seeded hourly rollup holds this many checks. */
const CHECKS_PER_HOUR = 60

interface Availability {
  uptimeRatio: number
  downtimeSeconds: number
  incidents: number
  longestIncidentSeconds: number
  maintenanceSeconds: number
  checks: number
}

let admin: Caller
let viewer: Caller
/** Midnight UTC three days ago: the known history starts here, and the clock never passes the real one. */
let d0: number

beforeAll(async () => {
  admin = await adminSession()
  viewer = await tokenFor(admin, ['probes:view'])
  d0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY
})

afterEach(() => {
  vi.useRealTimers()
})

const at = (hours: number) => d0 + hours * HOUR
const iso = (hours: number) => new Date(at(hours)).toISOString()

async function seedEvents(probeId: string, changes: [hours: number, from: string, to: string][]) {
  const insert = workerEnv.DB.prepare(
    `insert into probe_results (probe_id, kind, at, state, previous_state, latency_ms, detail)
     values (?1, 'event', ?2, ?3, ?4, null, null)`,
  )
  await workerEnv.DB.batch(changes.map(([hours, from, to]) => insert.bind(probeId, at(hours), to, from)))
}

/** Hourly rollups of 60 checks each (a failure every third hour) over [first, last) hours, and their daily sums. */
async function seedRollups(probeId: string, first: number, last: number) {
  await workerEnv.DB.prepare(
    `with recursive n(i) as (select ?2 union all select i + 1 from n where i < ?3 - 1)
     insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms,
       latency_count, latency_max_ms)
     select ?1, 'hourly', ?4 + i * ?5, ?6 - i % 3 - 1, i % 3, 1, 6000, ?6, 300 from n`,
  )
    .bind(probeId, first, last, d0, HOUR, CHECKS_PER_HOUR)
    .run()
  await workerEnv.DB.prepare(
    `insert into probe_rollups (probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms,
       latency_count, latency_max_ms)
     select probe_id, 'daily', bucket_start - bucket_start % ?2, sum(up), sum(down), sum(degraded),
       sum(latency_sum_ms), sum(latency_count), max(latency_max_ms)
     from probe_rollups where probe_id = ?1 and granularity = 'hourly' group by bucket_start - bucket_start % ?2`,
  )
    .bind(probeId, DAY)
    .run()
}

/**
 * The known history, hours from d0 (the window is d0 to d0 + 48 h, read at d0 + 54 h):
 * - down since 1 h before the window until 01:00: 1 h counted (3,600 s);
 * - down 10:00, flapping 10:30, up 11:00, with a one-off window 10:45–11:15 naming the probe: 45 min (2,700 s);
 * - down 23:00 until 02:00 the next day (degraded then): 3 h (10,800 s), 1 h on day 1 and 2 h on day 2;
 * - paused 30:00–31:00: no downtime;
 * - down 40:00–41:00 inside a weekly window 39:00–42:00 naming a page that lists the probe: no downtime;
 * - down again at 52:00, still down at 54:00.
 * A weekly window created at 54:00 covering 00:00–01:00 of d0's weekday is newer than the history: it excuses
 * nothing. A window naming another probe covers nothing of this one.
 */
async function knownHistory() {
  const probe = await quietProbe(admin)
  const other = await quietProbe(admin)
  const page = await createStatusPage(admin, {
    groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
  })
  await seedEvents(probe.id, [
    [-1, 'up', 'down'],
    [1, 'down', 'up'],
    [10, 'up', 'down'],
    [10.5, 'down', 'flapping'],
    [11, 'flapping', 'up'],
    [23, 'up', 'down'],
    [26, 'down', 'degraded'],
    [30, 'degraded', 'paused'],
    [31, 'paused', 'up'],
    [40, 'up', 'down'],
    [41, 'down', 'up'],
    [52, 'up', 'down'],
  ])
  await seedRollups(probe.id, -24, 54)
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(at(-2))
  await createWindow(admin, { schedule: once(at(10.75), 0.5), probeIds: [probe.id] })
  const weekday = (hours: number) => WEEKDAYS[new Date(at(hours)).getUTCDay()]
  const weekly = (hours: number, startTime: string, minutes: number) => ({
    kind: 'weekly',
    days: [weekday(hours)],
    startTime,
    durationMinutes: minutes,
    timezone: 'UTC',
  })
  await createWindow(admin, { schedule: weekly(24, '15:00', 180), statusPageIds: [page.id] })
  await createWindow(admin, { schedule: once(at(1), 1), probeIds: [other.id] })
  vi.setSystemTime(at(54))
  await createWindow(admin, { schedule: weekly(0, '00:00', 60), probeIds: [probe.id] })
  return probe
}

const availability = (id: string, from: number, to: number, caller = viewer) =>
  ok<Availability>('probes.availability', { id, from: iso(from), to: iso(to) }, caller)

/** floor(available / (observed − maintenance)) in basis points, as the README defines it. */
const ratio = (observed: number, maintenance: number, down: number) =>
  Math.floor(((observed - maintenance - down) * 10_000) / (observed - maintenance))

function parseCsv(text: string): string[][] {
  expect(text.endsWith('\r\n')).toBe(true)
  return text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => line.split(','))
}

describe('probes.availability', () => {
  it('should give each figure of a known history exactly, maintenance excluded from downtime', async () => {
    const probe = await knownHistory()
    expect(await availability(probe.id, 0, 48)).toEqual({
      uptimeRatio: ratio(172_800, 12_600, 17_100),
      downtimeSeconds: 3600 + 2700 + 10_800,
      incidents: 3,
      longestIncidentSeconds: 10_800,
      maintenanceSeconds: 1800 + 10_800,
      checks: 48 * CHECKS_PER_HOUR,
    })
  })

  it('should count a stretch still open to now, and time after now not at all', async () => {
    const probe = await knownHistory()
    expect(await availability(probe.id, 48, 72)).toEqual({
      uptimeRatio: ratio(6 * 3600, 0, 7200),
      downtimeSeconds: 7200,
      incidents: 1,
      longestIncidentSeconds: 7200,
      maintenanceSeconds: 0,
      checks: 6 * CHECKS_PER_HOUR,
    })
  })

  it('should read a window of partial days from hourly rollups and whole days from daily ones', async () => {
    const probe = await knownHistory()
    expect(await availability(probe.id, 18, 54)).toEqual({
      uptimeRatio: ratio(36 * 3600, 10_800, 18_000),
      downtimeSeconds: 10_800 + 7200,
      incidents: 2,
      longestIncidentSeconds: 10_800,
      maintenanceSeconds: 10_800,
      checks: 36 * CHECKS_PER_HOUR,
    })
  })

  it('should refuse a window past the hourly rollups’ retention (422 naming from) and one that ends first (400 naming to)', async () => {
    const probe = await quietProbe(admin)
    const now = Date.now()
    const old = await call(
      'probes.availability',
      {
        id: probe.id,
        from: new Date(now - HOURLY_RETENTION_MS - MINUTE).toISOString(),
        to: new Date(now).toISOString(),
      },
      viewer,
    )
    expect(old.status, old.text).toBe(422)
    expect(old.body).toMatchObject({ code: 'out_of_range', issues: [{ path: 'from' }] })
    const future = await call(
      'probes.availability',
      { id: probe.id, from: new Date(now + HOUR).toISOString(), to: new Date(now + 2 * HOUR).toISOString() },
      viewer,
    )
    expect(future.status, future.text).toBe(422)
    expect(future.body).toMatchObject({ code: 'out_of_range', issues: [{ path: 'from' }] })
    const backwards = await call(
      'probes.availability',
      { id: probe.id, from: new Date(now - HOUR).toISOString(), to: new Date(now - 2 * HOUR).toISOString() },
      viewer,
    )
    expect(backwards.status, backwards.text).toBe(400)
    expect(backwards.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'to' }] })
    const missing = await call(
      'probes.availability',
      { id: 'no-such-probe', from: new Date(now - HOUR).toISOString(), to: new Date(now).toISOString() },
      viewer,
    )
    expect(missing.status).toBe(404)
    const stranger = await tokenFor(admin, ['domains:view'])
    const refused = await call(
      'probes.availability',
      { id: probe.id, from: new Date(now - HOUR).toISOString(), to: new Date(now).toISOString() },
      stranger,
    )
    expect(refused.status).toBe(403)
  })
})

describe('GET /api/v1/probes/{id}/availability.csv', () => {
  const csvPath = (id: string, from: number, to: number) =>
    `/api/v1/probes/${id}/availability.csv?from=${encodeURIComponent(iso(from))}&to=${encodeURIComponent(iso(to))}`

  it('should answer one RFC 4180 row per UTC day whose figures add up to the window’s', async () => {
    const probe = await knownHistory()
    const res = await send(csvPath(probe.id, 0, 54), {
      headers: { authorization: `Bearer ${viewer.token}` },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    const [header, ...rows] = parseCsv(res.text)
    expect(header).toEqual([
      'date',
      'from',
      'to',
      'uptime_ratio',
      'downtime_seconds',
      'incidents',
      'longest_incident_seconds',
      'maintenance_seconds',
      'checks',
    ])
    const day = (date: number) => new Date(at(date)).toISOString().slice(0, 10)
    expect(rows).toEqual([
      [day(0), iso(0), iso(24), String(ratio(86_400, 1800, 9900)), '9900', '3', '10800', '1800', '1440'],
      [day(24), iso(24), iso(48), String(ratio(86_400, 10_800, 7200)), '7200', '0', '0', '10800', '1440'],
      [day(48), iso(48), iso(54), String(ratio(21_600, 0, 7200)), '7200', '1', '7200', '0', '360'],
    ])
    const whole = await availability(probe.id, 0, 54)
    const column = (i: number) => rows.reduce((sum, row) => sum + Number(row[i]), 0)
    expect(column(4)).toBe(whole.downtimeSeconds)
    expect(column(5)).toBe(whole.incidents)
    expect(Math.max(...rows.map((row) => Number(row[6])))).toBe(whole.longestIncidentSeconds)
    expect(column(7)).toBe(whole.maintenanceSeconds)
    expect(column(8)).toBe(whole.checks)
  })

  it('should need a bearer token with probes:view, and name a bad field like the procedure', async () => {
    const probe = await quietProbe(admin)
    const now = Date.now()
    const path = `/api/v1/probes/${probe.id}/availability.csv?from=${encodeURIComponent(new Date(now - HOUR).toISOString())}&to=${encodeURIComponent(new Date(now).toISOString())}`
    expect((await send(path)).status).toBe(401)
    const stranger = await tokenFor(admin, ['domains:view'])
    expect((await send(path, { headers: { authorization: `Bearer ${stranger.token}` } })).status).toBe(403)
    const bad = await send(`/api/v1/probes/${probe.id}/availability.csv?from=yesterday&to=now`, {
      headers: { authorization: `Bearer ${viewer.token}` },
    })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ code: 'validation_failed' })
    expect((bad.body as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual([
      'from',
      'to',
    ])
    const missing = await send(path.replace(probe.id, 'no-such-probe'), {
      headers: { authorization: `Bearer ${viewer.token}` },
    })
    expect(missing.status).toBe(404)
  })
})

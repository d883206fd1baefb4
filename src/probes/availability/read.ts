import type { D1Handle } from '../../db/client'
import type { MaintenanceSchedule } from '../../maintenance/schedule'
import type { ProbeSummary } from '../rows'
import type { CheckBucket, StateChange } from './figures'
import type { DeclaredWindow } from './maintenance'

// Availability reads only state-change events and rollups from D1 (never raw results), each through one
// statement here, so a change to where those live is made in this file alone.

const DAY_MS = 86_400_000

/** What a window's figures are computed from. */
export interface AvailabilityInputs {
  /** The state the probe was in at the window's start (its latest event then); null before its first. */
  before: ProbeSummary['state'] | null
  /** The state changes inside the window, oldest first. */
  changes: StateChange[]
  windows: DeclaredWindow[]
  buckets: CheckBucket[]
}

function stateBefore(d1: D1Handle, probeId: string, from: number) {
  return d1
    .prepare(
      `select state from probe_results where probe_id = ?1 and kind = 'event' and at <= ?2
       order by at desc, id desc limit 1`,
    )
    .bind(probeId, from)
}

function changesBetween(d1: D1Handle, probeId: string, from: number, to: number) {
  return d1
    .prepare(
      `select at, state from probe_results where probe_id = ?1 and kind = 'event' and at > ?2 and at < ?3
       order by at, id`,
    )
    .bind(probeId, from, to)
}

/** Check counts of one granularity's buckets starting in [from, to), over the rollups' primary key. */
function checksBetween(
  d1: D1Handle,
  probeId: string,
  granularity: 'hourly' | 'daily',
  from: number,
  to: number,
) {
  return d1
    .prepare(
      `select bucket_start as start, up + down + degraded as checks from probe_rollups
       where probe_id = ?1 and granularity = ?2 and bucket_start >= ?3 and bucket_start < ?4`,
    )
    .bind(probeId, granularity, from, to)
}

/** The windows naming the probe or a status page listing it, except one-off windows over before `from`. */
function windowsCovering(d1: D1Handle, probeId: string, from: number) {
  return d1
    .prepare(
      `select w.schedule, w.created_at from maintenance_windows w
       where (w.ends_at is null or w.ends_at > ?2) and (
         w.id in (select window_id from maintenance_window_probes where probe_id = ?1)
         or w.id in (select ws.window_id from maintenance_window_status_pages ws
           join status_pages s on s.id = ws.status_page_id
           where exists (select 1 from json_each(s.groups) g, json_each(g.value, '$.probes') p
             where json_extract(p.value, '$.probeId') = ?1)))`,
    )
    .bind(probeId, from)
}

/**
 * The rollups' spans: whole UTC days inside [from, to) from the daily rollups, the hours around them from the
 * hourly ones (a bucket counts where it starts).
 */
function rollupRanges(
  from: number,
  to: number,
): { hourly: [number, number][]; daily: [number, number] | null } {
  const firstDay = Math.ceil(from / DAY_MS) * DAY_MS
  const lastDay = Math.floor(to / DAY_MS) * DAY_MS
  if (firstDay >= lastDay) return { hourly: [[from, to]], daily: null }
  return {
    hourly: [
      [from, firstDay],
      [lastDay, to],
    ],
    daily: [firstDay, lastDay],
  }
}

/**
 * The events, maintenance windows and rollups behind a probe's availability over [from, to) (ms), in one round
 * trip; null when there is no such probe.
 */
export async function readAvailabilityInputs(
  d1: D1Handle,
  probeId: string,
  from: number,
  to: number,
): Promise<AvailabilityInputs | null> {
  const ranges = rollupRanges(from, to)
  const rollups = [
    ...ranges.hourly.map(([start, end]) => checksBetween(d1, probeId, 'hourly', start, end)),
    ...(ranges.daily ? [checksBetween(d1, probeId, 'daily', ...ranges.daily)] : []),
  ]
  const [probe, before, changes, windows, ...counts] = await d1.batch([
    d1.prepare('select 1 from probes where id = ?1').bind(probeId),
    stateBefore(d1, probeId, from),
    changesBetween(d1, probeId, from, to),
    windowsCovering(d1, probeId, from),
    ...rollups,
  ])
  if (!probe?.results.length) return null
  const previous = before?.results[0] as { state: ProbeSummary['state'] } | undefined
  return {
    before: previous?.state ?? null,
    changes: (changes?.results ?? []) as StateChange[],
    windows: ((windows?.results ?? []) as { schedule: string; created_at: number }[]).map((row) => ({
      schedule: JSON.parse(row.schedule) as MaintenanceSchedule,
      createdAt: row.created_at,
    })),
    buckets: counts.flatMap((result) => result.results as CheckBucket[]),
  }
}

/** The mean latency (ms, rounded) of the hourly rollups starting in [from, to); null when nothing was timed. */
export async function readMeanLatency(d1: D1Handle, probeId: string, from: number, to: number) {
  const row = await d1
    .prepare(
      `select sum(latency_sum_ms) as total, sum(latency_count) as count from probe_rollups
       where probe_id = ?1 and granularity = 'hourly' and bucket_start >= ?2 and bucket_start < ?3`,
    )
    .bind(probeId, from, to)
    .first<{ total: number | null; count: number | null }>()
  return row?.count ? Math.round((row.total ?? 0) / row.count) : null
}

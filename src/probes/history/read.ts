import type { D1Handle } from '../../db/client'
import { RAW_HISTORY_LIMIT } from '../monitor/results-store'
import { type ProbeResultRow, type ResultRecord, type RollupRecord, resultToRow, rollupToRow } from '../rows'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** probes.get shows this many of the latest events. */
export const EVENT_LIMIT = 100

export type Granularity = 'raw' | 'hourly' | 'daily'

export interface History {
  rows: ProbeResultRow[]
  /** D1's count of rows the query read: about one per row answered, however large the tables. */
  rowsRead: number
}

/**
 * The first bucket the window shows: the current hour and the `hours - 1` before it for hourly rollups (so never
 * more than one row per requested hour), the days that overlap the window for daily ones.
 */
export function windowStart(granularity: 'hourly' | 'daily', hours: number, now: number): number {
  if (granularity === 'hourly') return Math.floor(now / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS
  return Math.floor((now - hours * HOUR_MS) / DAY_MS) * DAY_MS
}

/**
 * The statement reading a probe's history in D1, oldest first. Rollups are read from `probe_rollups` alone, over
 * its primary key's range (probe, granularity, bucket); raw results from `probe_results` over its (probe, kind,
 * at) index, the latest RAW_HISTORY_LIMIT of the window (read newest first, so `historyRows` turns them around).
 * D1 holds raw rows only from a heartbeat ledger and from before the monitors kept them (see history/merge.ts).
 */
function historyStatement(
  d1: D1Handle,
  probeId: string,
  granularity: Granularity,
  hours: number,
  now: number,
): D1PreparedStatement {
  if (granularity === 'raw') {
    return d1
      .prepare(
        `select probe_id, kind, at, state, previous_state, latency_ms, detail from probe_results
         where probe_id = ?1 and kind = 'raw' and at > ?2 and at <= ?3 order by at desc limit ?4`,
      )
      .bind(probeId, now - hours * HOUR_MS, now, RAW_HISTORY_LIMIT)
  }
  return d1
    .prepare(
      `select probe_id, granularity, bucket_start, up, down, degraded, latency_sum_ms, latency_count, latency_max_ms,
       latency_p50_ms, latency_p95_ms, latency_p99_ms
       from probe_rollups where probe_id = ?1 and granularity = ?2 and bucket_start >= ?3 and bucket_start <= ?4
       order by bucket_start`,
    )
    .bind(probeId, granularity, windowStart(granularity, hours, now), now)
}

function historyRows(granularity: Granularity, results: unknown[]): ProbeResultRow[] {
  if (granularity === 'raw') return (results as ResultRecord[]).reverse().map(resultToRow)
  return (results as RollupRecord[]).map(rollupToRow)
}

/** A probe's history, oldest first (see `historyStatement`). */
export async function readHistory(
  d1: D1Handle,
  probeId: string,
  granularity: Granularity,
  hours: number,
  now: number,
): Promise<History> {
  const { results, meta } = await historyStatement(d1, probeId, granularity, hours, now).all()
  return { rows: historyRows(granularity, results), rowsRead: meta.rows_read }
}

/** A probe's history as D1 holds it: raw rows (as history rows) or rollup records, oldest first. */
export type StoredHistory = { raw: ProbeResultRow[] } | { rollups: RollupRecord[] }

/** D1's part of a probe's history, with the probe's existence read in the same round trip: null for no probe. */
export async function readProbeHistory(
  d1: D1Handle,
  probeId: string,
  granularity: Granularity,
  hours: number,
  now: number,
): Promise<StoredHistory | null> {
  const [probe, history] = await d1.batch([
    d1.prepare('select 1 from probes where id = ?1').bind(probeId),
    historyStatement(d1, probeId, granularity, hours, now),
  ])
  if (!probe?.results.length || !history) return null
  if (granularity === 'raw') return { raw: historyRows(granularity, history.results) }
  return { rollups: history.results as RollupRecord[] }
}

/** The probe's latest state-change events, newest first. */
export async function readEvents(d1: D1Handle, probeId: string): Promise<ProbeResultRow[]> {
  const { results } = await d1
    .prepare(
      `select probe_id, kind, at, state, previous_state, latency_ms, detail from probe_results
       where probe_id = ?1 and kind = 'event' order by at desc, id desc limit ?2`,
    )
    .bind(probeId, EVENT_LIMIT)
    .all<ResultRecord>()
  return results.map(resultToRow)
}

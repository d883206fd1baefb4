import { eq, sql } from 'drizzle-orm'
import { type BatchItem, type Db, db } from '../../db/client'
import { probeResults, probeRollups, probes } from '../../db/schema/probes'
import { addLatencyBucketsSql } from '../latency-buckets'
import type { ProbeLastResult } from './api'
import type { OwedRollup } from './results-store'
import type { MonitorState } from './state-machine'
import type { PendingEvent, PendingResult, PendingRollup, PendingWork } from './store'

// D1 binds at most 100 parameters per statement; a probe_results row binds 7.
const ROWS_PER_INSERT = 12

/** One raw result as it goes to `probe_results`. */
export type RawResult = Pick<PendingResult, 'at' | 'outcome' | 'latencyMs' | 'detail'>

const date = (ms: number | null) => (ms === null ? null : new Date(ms))

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += ROWS_PER_INSERT) out.push(items.slice(i, i + ROWS_PER_INSERT))
  return out
}

const eventRow = (probeId: string) => (e: PendingEvent) => ({
  probeId,
  kind: 'event' as const,
  at: new Date(e.at),
  state: e.state,
  previousState: e.previousState,
  latencyMs: e.latencyMs,
  detail: e.detail,
})

const rawRow = (probeId: string) => (r: RawResult) => ({
  probeId,
  kind: 'raw' as const,
  at: new Date(r.at),
  state: r.outcome,
  previousState: null,
  latencyMs: r.latencyMs,
  detail: r.detail,
})

/** The inserts of a probe's raw results, chunked under D1's parameter limit. */
export function rawInserts(database: Db, probeId: string, results: readonly RawResult[]): BatchItem[] {
  return chunks(results.map(rawRow(probeId))).map((rows) => database.insert(probeResults).values(rows))
}

const ex = (column: string) => sql.raw(`excluded.${column}`)

const closedSet = {
  latencyP50Ms: sql`${ex('latency_p50_ms')}`,
  latencyP95Ms: sql`${ex('latency_p95_ms')}`,
  latencyP99Ms: sql`${ex('latency_p99_ms')}`,
}

/**
 * Adds one bucket's counts to a probe's rollup row (made when absent); a closed bucket's percentiles, computed
 * from all its raw results, replace the row's.
 */
export function rollupUpsert(database: Db, probeId: string, r: PendingRollup | OwedRollup) {
  const { granularity, bucketStart, up, down, degraded, latencySumMs, latencyCount, latencyMaxMs } = r
  const latencyBuckets = r.latencyBuckets === null ? null : JSON.stringify(r.latencyBuckets)
  const closed = 'closed' in r && r.closed
  const percentiles = closed
    ? { latencyP50Ms: r.latencyP50Ms, latencyP95Ms: r.latencyP95Ms, latencyP99Ms: r.latencyP99Ms }
    : {}
  return database
    .insert(probeRollups)
    .values({
      probeId,
      granularity,
      bucketStart: new Date(bucketStart),
      up,
      down,
      degraded,
      latencySumMs,
      latencyCount,
      latencyMaxMs,
      latencyBuckets,
      ...percentiles,
    })
    .onConflictDoUpdate({
      target: [probeRollups.probeId, probeRollups.granularity, probeRollups.bucketStart],
      set: {
        up: sql`${probeRollups.up} + ${ex('up')}`,
        down: sql`${probeRollups.down} + ${ex('down')}`,
        degraded: sql`${probeRollups.degraded} + ${ex('degraded')}`,
        latencySumMs: sql`${probeRollups.latencySumMs} + ${ex('latency_sum_ms')}`,
        latencyCount: sql`${probeRollups.latencyCount} + ${ex('latency_count')}`,
        // SQLite's max() of a null is null: keep whichever side has a value.
        latencyMaxMs: sql`coalesce(max(${probeRollups.latencyMaxMs}, ${ex('latency_max_ms')}), ${probeRollups.latencyMaxMs}, ${ex('latency_max_ms')})`,
        latencyBuckets: sql.raw(
          addLatencyBucketsSql('"probe_rollups"."latency_buckets"', 'excluded.latency_buckets'),
        ),
        ...(closed ? closedSet : {}),
      },
    })
}

/**
 * `lastCheckedAt` and `lastResult` only ever move forward: the monitor and the heartbeat ledger both write them,
 * and whichever saw the later result wins whatever the order of their flushes.
 */
export function lastCheckSet(at: number, result: ProbeLastResult) {
  return {
    lastResult: sql`CASE WHEN coalesce(${probes.lastCheckedAt}, 0) <= ${at} THEN ${JSON.stringify(result)} ELSE ${probes.lastResult} END`,
    lastCheckedAt: sql`max(coalesce(${probes.lastCheckedAt}, 0), ${at})`,
  }
}

/** One monitor flush: its events, the rollups it owes, and what an older monitor left queued. */
export interface FlushWork extends PendingWork {
  rollups: OwedRollup[]
}

/** Whether there is anything for D1 (a flush may only have notifications to send or a frame to publish). */
export function writesD1(work: FlushWork): boolean {
  const legacy = work.legacy ? work.legacy.results.length + work.legacy.rollups.length : 0
  return work.events.length + work.rollups.length + legacy > 0
}

/**
 * Writes a monitor's pending work to D1 in ONE batch: the probe's state and last-check columns, its events, the
 * rollup increments and closed buckets' percentiles it owes, and an older monitor's queued raw rows.
 */
export async function flushToD1(d1: D1Database, probeId: string, state: MonitorState, work: FlushWork) {
  const database = db(d1)
  const statements: BatchItem[] = [
    ...chunks(work.events.map(eventRow(probeId))).map((rows) => database.insert(probeResults).values(rows)),
    ...rawInserts(database, probeId, work.legacy?.results ?? []),
    ...(work.legacy?.rollups ?? []).map((r) => rollupUpsert(database, probeId, r)),
    ...work.rollups.map((r) => rollupUpsert(database, probeId, r)),
  ]
  const lastCheck =
    state.lastCheckedAt !== null && state.lastResult !== null
      ? lastCheckSet(state.lastCheckedAt, state.lastResult)
      : {}
  const update = database
    .update(probes)
    .set({
      state: state.state,
      consecutiveFailures: state.consecutiveFailures,
      ...lastCheck,
      lastChangedAt: date(state.lastChangedAt),
    })
    .where(eq(probes.id, probeId))
  await database.batch([update, ...statements])
}

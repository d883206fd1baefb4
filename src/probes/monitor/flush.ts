import { eq, sql } from 'drizzle-orm'
import { type BatchItem, type Db, db } from '../../db/client'
import { probeResults, probeRollups, probes } from '../../db/schema/probes'
import { combineLatencyBucketsSql } from '../latency-buckets'
import type { ProbeLastResult } from './api'
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

/** Adds one bucket's counts to a probe's rollup row (made when absent). */
export function rollupUpsert(database: Db, probeId: string, r: PendingRollup) {
  return database
    .insert(probeRollups)
    .values({ probeId, ...r, bucketStart: new Date(r.bucketStart) })
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
          combineLatencyBucketsSql('"probe_rollups"."latency_buckets"', 'excluded.latency_buckets', '+'),
        ),
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

/** Whether there is anything for D1 (a flush may only have notifications to send or a frame to publish). */
export function writesD1(work: PendingWork): boolean {
  return work.results.length + work.events.length + work.rollups.length > 0
}

/**
 * Writes a monitor's pending work to D1 in ONE batch: the probe's state columns, its events, its raw rows
 * (at most RAW_ROWS_PER_FLUSH, capped when they were queued) and its rollup increments.
 */
export async function flushToD1(d1: D1Database, probeId: string, state: MonitorState, work: PendingWork) {
  const database = db(d1)
  const statements: BatchItem[] = [
    ...chunks(work.events.map(eventRow(probeId))).map((rows) => database.insert(probeResults).values(rows)),
    ...rawInserts(database, probeId, work.results),
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

import { eq } from 'drizzle-orm'
import { type BatchItem, db } from '../../db/client'
import { probes } from '../../db/schema/probes'
import { lastCheckSet, rawInserts, rollupUpsert } from '../monitor/flush'
import type { LedgerBatch } from './ledger-store'

/**
 * Writes a ledger shard's counts to D1 in ONE batch for all its probes: raw rows, hourly and daily rollup
 * increments, and each probe's `lastCheckedAt`/`lastResult` when its latest ping is newer than what D1 holds.
 */
export async function flushLedgerToD1(d1: D1Database, batch: LedgerBatch): Promise<void> {
  const database = db(d1)
  const statements: BatchItem[] = []
  for (const [probeId, counts] of batch.probes) {
    const { at, outcome, latencyMs, detail } = counts.last
    const lastResult = { at: new Date(at).toISOString(), outcome, latencyMs, detail }
    statements.push(
      database.update(probes).set(lastCheckSet(at, lastResult)).where(eq(probes.id, probeId)),
      ...rawInserts(database, probeId, counts.raw),
      ...counts.rollups.map((r) => rollupUpsert(database, probeId, r)),
    )
  }
  const [first, ...rest] = statements
  if (first) await database.batch([first, ...rest])
}

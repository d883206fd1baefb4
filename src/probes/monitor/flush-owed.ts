import type { Env } from '../../env'
import { benchMode } from '../checks/job'
import type { MonitorSnapshot } from './api'
import { settleAutoIncidents } from './auto-incidents'
import { flushToD1, writesD1 } from './flush'
import { publish, sendNotifications } from './outbox'
import { type ResultsStore, rollupOffsetMs } from './results-store'
import type { MonitorStore } from './store'

/** A flush that failed, and events or messages it left, are tried again this much later. */
const FLUSH_DELAY_MS = 60_000

/** Brings the next flush forward to `at` (no storage write when it is due sooner already). */
export function oweFlushBy(store: MonitorStore, at: number): void {
  const flushAt = store.flushAt()
  if (flushAt === null || at < flushAt) store.setFlushAt(at)
}

/** Owes a flush FLUSH_DELAY_MS from now (a change to write, or what a failure left), unless one is due sooner. */
export function owePending(store: MonitorStore): void {
  oweFlushBy(store, Date.now() + FLUSH_DELAY_MS)
}

/**
 * One flush at `now`: the events, the rollups owed (increments, closed buckets' percentiles) and the probe row in
 * one D1 batch, then the notifications and the hub's frames; the next flush is set for the next bucket to close,
 * or a minute on when something failed (kept: the results and the state are safe in the object's storage).
 */
export async function flushOwed(
  store: MonitorStore,
  results: ResultsStore,
  env: Env,
  snapshot: MonitorSnapshot,
  now: number,
): Promise<void> {
  const work = store.pending()
  const owed = results.owed(now)
  // Results recorded while the batch is in flight bring the next flush forward from here.
  store.setFlushAt(null)
  try {
    const flush = { ...work, rollups: owed.rollups }
    if (writesD1(flush)) {
      await flushToD1(env.DB, snapshot.id, store.state(), flush)
      // `npm run bench:probes` counts the monitors' D1 batches from these lines.
      if (benchMode(env)) console.log(`bench monitor flush ${Date.now()}`)
    }
    store.clearWritten(work)
    results.rolled(owed.marks, now)
    if (owed.nextAt !== null) oweFlushBy(store, owed.nextAt + rollupOffsetMs(snapshot.id))
    await sendNotifications(store, env)
    await publish(store, env, snapshot)
    await settleAutoIncidents(store, env, snapshot.id)
    if (store.hasPending()) owePending(store)
  } catch (error) {
    console.error(`probe ${snapshot.id}: flush failed`, error)
    owePending(store)
  }
}

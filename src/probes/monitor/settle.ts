import { syncLedger } from '../heartbeat/ledger-sync'
import type { MonitorContext } from './context'
import { flushOwed, owePending } from './flush-owed'
import { scheduleAlarm } from './next-deadline'

/**
 * Flushes at once when urgent (a state change, a notification), tells the ledger what changed, then sets the
 * one alarm. A ledger that cannot be told is retried from the alarm within a minute (and fails the call when
 * `strict`).
 */
export async function settle(
  monitor: MonitorContext,
  urgent: boolean,
  strict = false,
  now = Date.now(),
): Promise<void> {
  if (urgent || monitor.store.publishOwed()) await flush(monitor, now)
  let failure: unknown = null
  try {
    await syncLedger(monitor)
  } catch (error) {
    failure = error
    const snapshot = monitor.store.snapshot()
    console.error(`probe ${snapshot?.id}: telling the heartbeat ledger failed`, error)
    owePending(monitor.store)
  }
  await scheduleAlarm(monitor)
  if (failure !== null && strict) throw failure
}

function flush(monitor: MonitorContext, now: number): Promise<void> {
  // One flush at a time: the next one takes what arrived meanwhile.
  monitor.flushing = monitor.flushing.then(() => flushOnce(monitor, now))
  return monitor.flushing
}

/** Writes what D1 is owed at `now` (the alarm's moment, or the call's), then the queue and the hub. */
async function flushOnce(monitor: MonitorContext, now: number): Promise<void> {
  const { store, results, env } = monitor
  const snapshot = store.snapshot()
  if (snapshot) await flushOwed(store, results, env, snapshot, now)
}

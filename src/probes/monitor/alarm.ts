import { missedDeadlines } from '../heartbeat/deadlines'
import { catchUpWithLedger } from '../heartbeat/ledger-sync'
import type { MonitorContext } from './context'
import { readWindows } from './maintenance-windows'
import { remindWhileDown } from './maintenance-withhold'
import { runOwnCheck } from './own-check'
import { record } from './record'
import { judgeRounds } from './rounds'
import { settle } from './settle'

/**
 * What the monitor's one alarm does, whichever deadline it stood for: the flap window's end (a tick), the rounds
 * due, the heartbeat's missed deadlines, its own check, a reminder while down, and the flush owed by then.
 */
export async function runAlarm(monitor: MonitorContext): Promise<void> {
  const { store } = monitor
  // The alarm stands for the moment it was set for, even when it runs later (or early, in tests).
  const now = Math.max(Date.now(), store.alarmAt() ?? 0)
  const snapshot = store.snapshot()
  if (!snapshot) return
  // Before anything is written: if the ledger cannot answer, the runtime retries the whole alarm.
  await catchUpWithLedger(monitor, snapshot, now)
  await readWindows(monitor, snapshot.id)
  store.setAlarmAt(null)
  let urgent = record(monitor, { kind: 'tick', at: now })
  urgent = judgeRounds(monitor, now) || urgent
  for (const missed of missedDeadlines(store, snapshot, now)) urgent = record(monitor, missed) || urgent
  urgent = (await runOwnCheck(monitor, snapshot, now)) || urgent
  urgent = remindWhileDown(store, now) || urgent
  const flushAt = store.flushAt()
  await settle(monitor, urgent || (flushAt !== null && flushAt <= now), false, now)
}

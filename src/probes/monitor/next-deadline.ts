import { nextRepeatAt } from '../../notifications/probes/policy'
import { deadlineAfter, heartbeatTimesOf } from '../heartbeat/deadlines'
import { isActive } from './api'
import type { MonitorContext } from './context'
import { flapEndsAt } from './state-machine'
import type { MonitorStore } from './store'

/** The monitor's earliest deadline (flush, heartbeat, own check, round, flap end, reminder, cover end), or null. */
export function nextDeadline(store: MonitorStore): number | null {
  const snapshot = store.snapshot()
  if (!snapshot) return null
  const state = store.state()
  const times = heartbeatTimesOf(snapshot)
  const { base, startedAt } = store.heartbeat()
  const heartbeatActive = times !== null && isActive(snapshot)
  const deadlines = [
    store.flushAt(),
    heartbeatActive && base !== null ? deadlineAfter(times, base) : null,
    heartbeatActive && startedAt !== null ? startedAt + times.graceMs : null,
    store.nextCheckAt(),
    ...store.rounds().map((round) => round.deadline),
    flapEndsAt(state, snapshot.config),
    nextRepeatAt(store.notifyMemory(), state.state, snapshot.notifyConfig),
    store.notifyMemory().withheld?.until ?? null,
  ].filter((at): at is number => at !== null)
  return deadlines.length > 0 ? Math.min(...deadlines) : null
}

/** Sets the one alarm for the earliest deadline, or none. */
export async function scheduleAlarm(monitor: MonitorContext): Promise<void> {
  const { store, storage } = monitor
  if (!store.snapshot()) return
  const next = nextDeadline(store)
  if (next === store.alarmAt()) return
  store.setAlarmAt(next)
  if (next === null) await storage.deleteAlarm()
  else await storage.setAlarm(next)
}

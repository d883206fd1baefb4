import { nextRepeatAt } from '../../notifications/probes/policy'
import { deadlineAfter, heartbeatTimesOf, isActive } from '../heartbeat/deadlines'
import type { LiveState } from './api'
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

/** The live state the monitor holds. */
export function liveStateOf(store: MonitorStore): LiveState {
  const state = store.state()
  return {
    state: state.state,
    consecutiveFailures: state.consecutiveFailures,
    lastResult: state.lastResult,
    lastCheckedAt: state.lastCheckedAt,
    lastChangedAt: state.lastChangedAt,
    lastPing: store.heartbeat().lastPing,
  }
}

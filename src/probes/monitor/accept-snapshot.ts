import { SCAN_MIN_INTERVAL_SECONDS } from '../checks/scan-cron'
import { isCheckedConfig } from '../config'
import { heartbeatTimesOf } from '../heartbeat/deadlines'
import { isActive, type MonitorSnapshot } from './api'
import type { MonitorContext } from './context'
import { currentChange } from './outbox'
import { record } from './record'

/** Whether this monitor's own alarm runs the checks (intervals under a minute; the minute scan runs the rest). */
export function runsOwnChecks(snapshot: MonitorSnapshot): boolean {
  return isCheckedConfig(snapshot.config) && snapshot.config.intervalSeconds < SCAN_MIN_INTERVAL_SECONDS
}

/** Takes a snapshot unless an older one; pausing, resuming and re-arming follow from it. Urgent when it changed the state. */
export function accept(monitor: MonitorContext, snapshot: MonitorSnapshot, now: number): boolean {
  const { store } = monitor
  const previous = store.snapshot()
  if (previous && previous.version > snapshot.version) return false
  // The same version is the same catalogue row: no storage write for each check's copy of it.
  if (previous?.version !== snapshot.version) store.setSnapshot(snapshot)
  const wasActive = previous ? isActive(previous) : false
  const flipped = !previous || previous.enabled !== snapshot.enabled
  if (!isActive(snapshot)) {
    store.setNextCheckAt(null)
    store.setRounds([])
    store.setHeartbeat({ ...store.heartbeat(), startedAt: null, base: null })
    const changed = record(monitor, { kind: 'pause', at: now })
    // A pause that changed the state owes its change already, with the new enabled.
    if (flipped && !changed) oweCurrent(monitor, snapshot)
    return changed
  }
  if (flipped) oweCurrent(monitor, snapshot)
  if (heartbeatTimesOf(snapshot) && (!wasActive || store.heartbeat().base === null)) {
    // Armed now, so a heartbeat never pinged still goes down.
    store.setHeartbeat({ ...store.heartbeat(), base: now })
  }
  if (!runsOwnChecks(snapshot)) store.setNextCheckAt(null)
  else if (!wasActive || store.nextCheckAt() === null) store.setNextCheckAt(now)
  return false
}

/** Owes the hub the probe as it stands, for a change of enabled alone. */
function oweCurrent(monitor: MonitorContext, snapshot: MonitorSnapshot): void {
  monitor.store.owePublish(currentChange(monitor.store, snapshot))
}

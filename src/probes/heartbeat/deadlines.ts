import { isActive, type LastPing, type MonitorSnapshot } from '../monitor/api'
import type { MonitorInput } from '../monitor/state-machine'
import type { MonitorStore } from '../monitor/store'
import { type HeartbeatTimes, heartbeatTimes } from './schedule'

/** Missed heartbeat deadlines one alarm records at most (a monitor asleep for long catches up in steps). */
const MAX_MISSES_PER_ALARM = 10

export function heartbeatTimesOf(snapshot: MonitorSnapshot): HeartbeatTimes | null {
  const config = snapshot.config
  if (snapshot.type !== 'heartbeat' || !('graceSeconds' in config)) return null
  return heartbeatTimes(config)
}

/** When the run expected after `base` counts as missed: its expected time + grace; null when none is expected. */
export function deadlineAfter(times: HeartbeatTimes, base: number): number | null {
  const expected = times.expectedAfter(base)
  return expected === null ? null : expected + times.graceMs
}

export const pingTime = (ping: LastPing | null) => (ping === null ? null : Date.parse(ping.at))

/** The newer of two last pings. */
export function newerPing(a: LastPing | null, b: LastPing | null): LastPing | null {
  return (pingTime(b) ?? -1) > (pingTime(a) ?? -1) ? b : a
}

/**
 * Each deadline that passed without a ping is a failure stamped at that deadline; so is a run signalled with
 * `/start` that did not finish within the grace (the next deadline then counts from that failure). Moves the
 * heartbeat's base past them and answers the failures to record, oldest first.
 */
export function missedDeadlines(store: MonitorStore, snapshot: MonitorSnapshot, now: number): MonitorInput[] {
  const times = heartbeatTimesOf(snapshot)
  if (!times || !isActive(snapshot)) return []
  const missed: MonitorInput[] = []
  const started = store.heartbeat()
  if (started.startedAt !== null && started.startedAt + times.graceMs <= now) {
    const at = started.startedAt + times.graceMs
    store.setHeartbeat({ ...started, startedAt: null, base: at })
    const detail = `started, not finished within ${times.graceMs / 1000} s`
    missed.push({ kind: 'result', at, outcome: 'down', latencyMs: null, detail })
  }
  for (let miss = 0; miss < MAX_MISSES_PER_ALARM; miss++) {
    const heartbeat = store.heartbeat()
    if (heartbeat.base === null) break
    const expected = times.expectedAfter(heartbeat.base)
    if (expected === null) break
    const deadline = expected + times.graceMs
    if (deadline > now) break
    // The missed run is the base of the next one.
    store.setHeartbeat({ ...heartbeat, base: expected })
    missed.push({
      kind: 'result',
      at: deadline,
      outcome: 'down',
      latencyMs: null,
      detail: times.missDetail(expected),
    })
  }
  return missed
}

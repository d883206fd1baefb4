import type { ProbeSummary } from '../rows'
import { stateUpRatio } from '../rows'
import { overlap, type Span, subtract, toSeconds } from './spans'

type State = ProbeSummary['state']

/** A state change: when (ms) and the state it entered. */
export interface StateChange {
  at: number
  state: State
}

/** One rollup bucket's start (ms) and its checks. */
export interface CheckBucket {
  start: number
  checks: number
}

/** The figures of one stretch of time, as probes.availability answers them. */
export interface Availability {
  uptimeRatio: number
  downtimeSeconds: number
  incidents: number
  longestIncidentSeconds: number
  maintenanceSeconds: number
  checks: number
}

/** A down stretch with the maintenance taken out: what is left of it, and when it is first down outside a window. */
interface Incident {
  downtime: Span[]
  seconds: number
  firstDown: number
}

/** Everything a window's figures, and those of any part of it, are computed from. */
export interface History {
  /** The window, seconds: [from, to) with `to` no later than now. */
  window: Span
  incidents: Incident[]
  maintenance: Span[]
  buckets: CheckBucket[]
}

/** Down and flapping are down (stateUpRatio 0); up, degraded and paused are not. */
const isDown = (state: State | null) => state !== null && stateUpRatio(state) === 0

/**
 * The maximal down stretches inside the window, from the state at its start and the changes inside it (oldest
 * first): one that began earlier counts from the window's start, one still open to its end.
 */
function downStretches(window: Span, before: State | null, changes: readonly StateChange[]): Span[] {
  const stretches: Span[] = []
  let downSince: number | null = isDown(before) ? window.start : null
  for (const change of changes) {
    const at = Math.min(Math.max(toSeconds(change.at), window.start), window.end)
    if (isDown(change.state)) downSince ??= at
    else if (downSince !== null) {
      stretches.push({ start: downSince, end: at })
      downSince = null
    }
  }
  if (downSince !== null) stretches.push({ start: downSince, end: window.end })
  return stretches
}

/** The window's incidents: each down stretch with any time outside maintenance is one. */
export function buildHistory(
  window: Span,
  before: State | null,
  changes: readonly StateChange[],
  maintenance: Span[],
  buckets: CheckBucket[],
): History {
  const incidents = downStretches(window, before, changes).flatMap((stretch): Incident[] => {
    const downtime = subtract(stretch, maintenance)
    const first = downtime[0]
    if (!first) return []
    return [{ downtime, seconds: overlap(downtime, stretch.start, stretch.end), firstDown: first.start }]
  })
  return { window, incidents, maintenance, buckets }
}

/**
 * The figures of [from, to) inside the history's window (seconds). An incident counts in the part where its
 * downtime begins, with its whole length in the window; so the parts' incidents add up to the window's, and
 * their downtime, maintenance and checks too.
 */
export function figuresOf(history: History, from: number, to: number): Availability {
  const start = Math.max(from, history.window.start)
  const end = Math.min(to, history.window.end)
  const observed = Math.max(0, end - start)
  const maintenanceSeconds = overlap(history.maintenance, start, end)
  let downtimeSeconds = 0
  let incidents = 0
  let longestIncidentSeconds = 0
  for (const incident of history.incidents) {
    downtimeSeconds += overlap(incident.downtime, start, end)
    if (incident.firstDown < start || incident.firstDown >= end) continue
    incidents += 1
    longestIncidentSeconds = Math.max(longestIncidentSeconds, incident.seconds)
  }
  const counted = observed - maintenanceSeconds
  let checks = 0
  for (const bucket of history.buckets) {
    const at = toSeconds(bucket.start)
    if (at >= start && at < end) checks += bucket.checks
  }
  return {
    uptimeRatio: counted <= 0 ? 10_000 : Math.floor(((counted - downtimeSeconds) * 10_000) / counted),
    downtimeSeconds,
    incidents,
    longestIncidentSeconds,
    maintenanceSeconds,
    checks,
  }
}

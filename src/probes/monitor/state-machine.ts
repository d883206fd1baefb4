import type { CheckOutcome, ProbeLastResult, ProbeState } from './api'

/** The judging keys every probe type's config has. */
export interface Judging {
  failureThreshold: number
  recoveryThreshold: number
  flapWindowSeconds: number
  flapThreshold: number
}

/** What the ProbeMonitor remembers between results. */
export interface MonitorState {
  /** The displayed state. */
  state: ProbeState
  /** What the thresholds say, flapping aside; null until known (new, or since the last pause). */
  underlying: CheckOutcome | null
  consecutiveFailures: number
  consecutiveGood: number
  lastResult: ProbeLastResult | null
  lastCheckedAt: number | null
  lastChangedAt: number | null
  /** When the underlying state changed, oldest first, inside the flap window. */
  changeTimes: number[]
}

export const INITIAL_MONITOR_STATE: MonitorState = {
  state: 'paused',
  underlying: null,
  consecutiveFailures: 0,
  consecutiveGood: 0,
  lastResult: null,
  lastCheckedAt: null,
  lastChangedAt: null,
  changeTimes: [],
}

/** A result to judge: a check's, a heartbeat ping's, or a missed heartbeat deadline's. */
export interface Observation {
  at: number
  outcome: CheckOutcome
  latencyMs: number | null
  detail: string
}

export type MonitorInput =
  | ({ kind: 'result' } & Observation)
  /** Disabled or archived. */
  | { kind: 'pause'; at: number }
  /** Time passed (an alarm): ends flapping once a whole window went quiet. */
  | { kind: 'tick'; at: number }

/** One change of the displayed state: one event row, one watch frame, one notification decision. */
export interface StateTransition {
  from: ProbeState
  to: ProbeState
  at: number
  result: ProbeLastResult | null
}

export interface Step {
  next: MonitorState
  changes: StateTransition[]
}

/** When flapping ends if nothing changes meanwhile; null when not flapping. */
export function flapEndsAt(state: MonitorState, judging: Judging): number | null {
  const last = state.changeTimes.at(-1)
  if (state.state !== 'flapping' || last === undefined) return null
  return last + judging.flapWindowSeconds * 1000
}

function display(state: MonitorState, to: ProbeState, at: number, changes: StateTransition[]): MonitorState {
  if (state.state === to) return state
  changes.push({ from: state.state, to, at, result: state.lastResult })
  return { ...state, state: to, lastChangedAt: at }
}

function settle(state: MonitorState, at: number, judging: Judging, changes: StateTransition[]): MonitorState {
  const end = flapEndsAt(state, judging)
  if (end === null || at < end) return state
  return { ...display(state, state.underlying ?? 'paused', end, changes), changeTimes: [] }
}

function underlyingAfter(state: MonitorState, outcome: CheckOutcome, judging: Judging): CheckOutcome | null {
  if (outcome === 'down')
    return state.consecutiveFailures >= judging.failureThreshold ? 'down' : state.underlying
  if (state.underlying === 'down' && state.consecutiveGood < judging.recoveryThreshold) return 'down'
  return outcome
}

function judge(state: MonitorState, result: Observation, judging: Judging, changes: StateTransition[]) {
  const failed = result.outcome === 'down'
  const counted: MonitorState = {
    ...state,
    consecutiveFailures: failed ? state.consecutiveFailures + 1 : 0,
    consecutiveGood: failed ? 0 : state.consecutiveGood + 1,
    lastResult: {
      at: new Date(result.at).toISOString(),
      outcome: result.outcome,
      latencyMs: result.latencyMs,
      detail: result.detail,
    },
    lastCheckedAt: result.at,
  }
  const underlying = underlyingAfter(counted, result.outcome, judging)
  if (underlying === null || underlying === counted.underlying) return counted
  const next = { ...counted, underlying }
  // The first state found (new or resumed) is not a change for flap detection.
  if (counted.underlying === null) return display(next, underlying, result.at, changes)
  const windowStart = result.at - judging.flapWindowSeconds * 1000
  const changeTimes = [...next.changeTimes.filter((at) => at > windowStart), result.at]
  const flapping = next.state === 'flapping' || changeTimes.length > judging.flapThreshold
  return display({ ...next, changeTimes }, flapping ? 'flapping' : underlying, result.at, changes)
}

/** The pure probe state machine: the previous state and one input give the next state and its displayed changes. */
export function reduce(state: MonitorState, input: MonitorInput, judging: Judging): Step {
  const changes: StateTransition[] = []
  if (input.kind === 'pause') {
    const paused = display(state, 'paused', input.at, changes)
    return {
      next: { ...paused, underlying: null, consecutiveFailures: 0, consecutiveGood: 0, changeTimes: [] },
      changes,
    }
  }
  const settled = settle(state, input.at, judging, changes)
  if (input.kind === 'tick') return { next: settled, changes }
  return { next: judge(settled, input, judging, changes), changes }
}

/** How many applied check ids a monitor remembers (a redelivery comes within minutes, not 100 checks later). */
export const REMEMBERED_CHECKS = 100

/** The applied ids with this one added, oldest dropped; null when it was applied already. */
export function rememberCheck(ids: readonly string[], checkId: string): string[] | null {
  if (ids.includes(checkId)) return null
  return [...ids, checkId].slice(-REMEMBERED_CHECKS)
}

import { describe, expect, it } from 'vitest'
import type { CheckOutcome } from '../../src/probes/monitor/api'
import {
  flapEndsAt,
  INITIAL_MONITOR_STATE,
  type Judging,
  type MonitorState,
  reduce,
  rememberCheck,
  type StateTransition,
} from '../../src/probes/monitor/state-machine'

const judging: Judging = {
  failureThreshold: 3,
  recoveryThreshold: 1,
  flapWindowSeconds: 600,
  flapThreshold: 5,
}
const T0 = Date.UTC(2026, 10, 1, 12)

/** Feeds outcomes one a minute from T0 and collects every displayed change. */
function run(
  outcomes: CheckOutcome[],
  rules: Judging = judging,
  from: MonitorState = INITIAL_MONITOR_STATE,
  stepMs = 60_000,
): { state: MonitorState; changes: StateTransition[] } {
  let state = from
  const changes: StateTransition[] = []
  outcomes.forEach((outcome, i) => {
    const step = reduce(
      state,
      { kind: 'result', at: T0 + i * stepMs, outcome, latencyMs: 10, detail: outcome },
      rules,
    )
    state = step.next
    changes.push(...step.changes)
  })
  return { state, changes }
}

describe('probe state machine', () => {
  it('should stay paused until the first result, then take the state it found', () => {
    const { state, changes } = run(['up'])
    expect(INITIAL_MONITOR_STATE.state).toBe('paused')
    expect(state).toMatchObject({ state: 'up', consecutiveFailures: 0, lastCheckedAt: T0, lastChangedAt: T0 })
    expect(state.lastResult).toEqual({
      at: new Date(T0).toISOString(),
      outcome: 'up',
      latencyMs: 10,
      detail: 'up',
    })
    expect(changes).toEqual([{ from: 'paused', to: 'up', at: T0, result: state.lastResult }])
  })

  it('should go down only after the threshold: 5 failures with threshold 3 make exactly one down event', () => {
    const { state, changes } = run(['up', 'down', 'down', 'down', 'down', 'down'])
    expect(changes.map((c) => [c.from, c.to, c.at])).toEqual([
      ['paused', 'up', T0],
      ['up', 'down', T0 + 3 * 60_000],
    ])
    expect(state).toMatchObject({ state: 'down', consecutiveFailures: 5 })
  })

  it('should not go down on failures fewer than the threshold, and a good result resets the count', () => {
    const { state, changes } = run(['up', 'down', 'down', 'up', 'down', 'down'])
    expect(changes.map((c) => c.to)).toEqual(['up'])
    expect(state).toMatchObject({ state: 'up', consecutiveFailures: 2 })
  })

  it('should go down from a fresh probe after the threshold, not before', () => {
    const { state, changes } = run(['down', 'down'])
    expect(state.state).toBe('paused')
    expect(changes).toEqual([])
    expect(run(['down', 'down', 'down']).changes.map((c) => [c.from, c.to])).toEqual([['paused', 'down']])
  })

  it('should recover after recoveryThreshold good results, as degraded when the good result was degraded', () => {
    const rules = { ...judging, recoveryThreshold: 2 }
    const { changes, state } = run(['down', 'down', 'down', 'up', 'degraded'], rules)
    expect(changes.map((c) => [c.from, c.to, c.at])).toEqual([
      ['paused', 'down', T0 + 2 * 60_000],
      ['down', 'degraded', T0 + 4 * 60_000],
    ])
    expect(state.consecutiveFailures).toBe(0)
    expect(run(['down', 'down', 'down', 'up']).changes.map((c) => c.to)).toEqual(['down', 'up'])
  })

  it('should show a slow answer as degraded and a fast one as up again', () => {
    const { changes } = run(['up', 'degraded', 'up'])
    expect(changes.map((c) => [c.from, c.to])).toEqual([
      ['paused', 'up'],
      ['up', 'degraded'],
      ['degraded', 'up'],
    ])
  })

  it('should turn flapping once on more than flapThreshold changes in the window, silent while it flaps', () => {
    const rules: Judging = {
      failureThreshold: 1,
      recoveryThreshold: 1,
      flapWindowSeconds: 600,
      flapThreshold: 3,
    }
    // paused→up (not counted), then underlying changes at 1, 2, 3, 4, 5, 6 minutes.
    const { state, changes } = run(['up', 'down', 'up', 'down', 'up', 'down', 'up'], rules)
    expect(changes.map((c) => [c.from, c.to])).toEqual([
      ['paused', 'up'],
      ['up', 'down'],
      ['down', 'up'],
      ['up', 'down'],
      ['down', 'flapping'],
    ])
    expect(changes.filter((c) => c.to === 'flapping')).toHaveLength(1)
    expect(state).toMatchObject({ state: 'flapping', underlying: 'up' })
    expect(flapEndsAt(state, rules)).toBe(T0 + 6 * 60_000 + 600_000)
  })

  it('should leave flapping, as one change to the underlying state, once a whole window passed quietly', () => {
    const rules: Judging = {
      failureThreshold: 1,
      recoveryThreshold: 1,
      flapWindowSeconds: 600,
      flapThreshold: 3,
    }
    const flapping = run(['up', 'down', 'up', 'down', 'up', 'down', 'up'], rules).state
    const end = flapEndsAt(flapping, rules) ?? 0
    expect(reduce(flapping, { kind: 'tick', at: end - 1 }, rules).changes).toEqual([])
    const left = reduce(flapping, { kind: 'tick', at: end + 5000 }, rules)
    expect(left.changes).toEqual([{ from: 'flapping', to: 'up', at: end, result: flapping.lastResult }])
    expect(left.next).toMatchObject({ state: 'up', lastChangedAt: end, changeTimes: [] })
    expect(flapEndsAt(left.next, rules)).toBeNull()
  })

  it('should not count changes that fell out of the window', () => {
    const rules: Judging = {
      failureThreshold: 1,
      recoveryThreshold: 1,
      flapWindowSeconds: 600,
      flapThreshold: 3,
    }
    // One change every 4 minutes: never more than 3 inside 10 minutes.
    const { changes } = run(
      ['up', 'down', 'up', 'down', 'up', 'down', 'up'],
      rules,
      INITIAL_MONITOR_STATE,
      240_000,
    )
    expect(changes.map((c) => c.to)).not.toContain('flapping')
  })

  it('should leave flapping on a late result when the window passed before it, then judge that result', () => {
    const rules: Judging = {
      failureThreshold: 1,
      recoveryThreshold: 1,
      flapWindowSeconds: 600,
      flapThreshold: 3,
    }
    const flapping = run(['up', 'down', 'up', 'down', 'up', 'down', 'up'], rules).state
    const end = flapEndsAt(flapping, rules) ?? 0
    const step = reduce(
      flapping,
      { kind: 'result', at: end + 60_000, outcome: 'down', latencyMs: null, detail: 'HTTP 503' },
      rules,
    )
    expect(step.changes.map((c) => [c.from, c.to, c.at])).toEqual([
      ['flapping', 'up', end],
      ['up', 'down', end + 60_000],
    ])
  })

  it('should pause from any state, forget the counters, and start over from the next result', () => {
    const down = run(['down', 'down', 'down']).state
    const paused = reduce(down, { kind: 'pause', at: T0 + 600_000 }, judging)
    expect(paused.changes).toEqual([
      { from: 'down', to: 'paused', at: T0 + 600_000, result: down.lastResult },
    ])
    expect(paused.next).toMatchObject({ state: 'paused', underlying: null, consecutiveFailures: 0 })
    expect(reduce(paused.next, { kind: 'pause', at: T0 + 700_000 }, judging).changes).toEqual([])
  })

  it('should apply a check id once: the second time is refused', () => {
    const first = rememberCheck([], 'p:1')
    expect(first).toEqual(['p:1'])
    expect(rememberCheck(first ?? [], 'p:1')).toBeNull()
    const many = Array.from({ length: 100 }, (_, i) => `p:${i}`)
    const kept = rememberCheck(many, 'p:100')
    expect(kept).toHaveLength(100)
    expect(kept?.[0]).toBe('p:1')
  })
})

type ProbeState = 'up' | 'down' | 'degraded' | 'flapping' | 'paused'

const SYMBOL: Record<ProbeState, string> = { up: '●', down: '▼', degraded: '◆', flapping: '↯', paused: '❚❚' }

/** What a probe still waits for before it has a state of its own: a first check, or a heartbeat's first ping. */
export type FirstWait = 'check' | 'ping'

/**
 * Whether a probe has never been checked: the API keeps a new probe `paused` until its first check (the contract),
 * which reads as if someone paused it. Enabled and no check yet (`lastCheckedAt` null) means it is waiting.
 */
export function firstWait(probe: {
  state: ProbeState
  enabled: boolean
  type: string
  lastCheckedAt: string | null
}): FirstWait | undefined {
  if (probe.state !== 'paused' || !probe.enabled || probe.lastCheckedAt !== null) return undefined
  return probe.type === 'heartbeat' ? 'ping' : 'check'
}

/**
 * A probe's state as a coloured word with a symbol, so it reads without colour too; a probe never checked yet says
 * what it waits for instead of `paused`.
 */
export function StateBadge({ state, waiting }: { state: ProbeState; waiting?: FirstWait | undefined }) {
  if (state === 'paused' && waiting)
    return (
      <span className="state state-waiting">
        <span aria-hidden="true">○ </span>
        waiting for its first {waiting}
      </span>
    )
  return (
    <span className={`state state-${state}`}>
      <span aria-hidden="true">{SYMBOL[state]} </span>
      {state}
    </span>
  )
}

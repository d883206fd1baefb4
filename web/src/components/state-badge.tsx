type ProbeState = 'up' | 'down' | 'degraded' | 'flapping' | 'paused'

const SYMBOL: Record<ProbeState, string> = { up: '●', down: '▼', degraded: '◆', flapping: '↯', paused: '❚❚' }

/** A probe's state as a coloured word with a symbol, so it reads without colour too. */
export function StateBadge({ state }: { state: ProbeState }) {
  return (
    <span className={`state state-${state}`}>
      <span aria-hidden="true">{SYMBOL[state]} </span>
      {state}
    </span>
  )
}

import { TimeStamp } from '../../components/time-stamp'
import type { NodeRow } from './types'

type Health = NodeRow['health']

const LOOK: Record<Health['state'], { className: string; symbol: string }> = {
  ok: { className: 'state-up', symbol: '●' },
  unreachable: { className: 'state-down', symbol: '▼' },
  refusing: { className: 'state-down', symbol: '◆' },
  unknown: { className: 'state-paused', symbol: '○' },
}

/** A node's agent health: the state as a word with a symbol, the error beside it, and when the agent last answered. */
export function NodeHealth({ health }: { health: Health }) {
  const { className, symbol } = LOOK[health.state]
  return (
    <>
      <span className={`state ${className}`}>
        <span aria-hidden="true">{symbol} </span>
        {health.state === 'unknown' ? 'not checked yet' : health.state}
      </span>
      {health.error && <div className="field-error">{health.error}</div>}
      {health.state !== 'ok' && health.state !== 'unknown' && (
        <div className="note">
          agent last answered: {health.lastSeenAt ? <TimeStamp iso={health.lastSeenAt} /> : 'never'}
        </div>
      )}
      {health.state === 'ok' && health.agentVersion && (
        <div className="note">
          agent {health.agentVersion}, config {health.appliedConfigVersion ?? '—'}
        </div>
      )}
    </>
  )
}

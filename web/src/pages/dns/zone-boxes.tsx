import type { api } from '../../api'
import { when } from './format'

type ZoneBox = Awaited<ReturnType<typeof api.dnsServers.zones.list>>[number]['boxes'][number]

const STATE_CLASS: Record<ZoneBox['state'], string> = {
  synced: 'state-up',
  pending: 'state-degraded',
  failed: 'state-down',
}

/** Each box's copy of a zone: synced, pending a write, or failed and catching up through its job. */
export function ZoneBoxes({ boxes }: { boxes: readonly ZoneBox[] }) {
  if (boxes.length === 0) return <span className="note">no box serves it</span>
  return (
    <ul className="plain">
      {boxes.map((box) => (
        <li key={box.nodeId}>
          {box.name} <span className={`state ${STATE_CLASS[box.state]}`}>{box.state}</span>
          {box.lastError && (
            <span className="note">
              {' '}
              — {box.lastError} (attempt {box.attempts}, {when(box.updatedAt)})
            </span>
          )}
        </li>
      ))}
    </ul>
  )
}

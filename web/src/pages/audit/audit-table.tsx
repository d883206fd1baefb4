import { Link } from 'wouter'
import { TimeStamp } from '../../components/time-stamp'
import type { AuditEntry } from './types'

const KIND_LABEL: Readonly<Record<string, string>> = {
  session: 'user',
  token: 'API token',
  'site-token': 'site token',
  anonymous: 'nobody signed in',
}

/** An id nobody can name any more, shortened for reading; the whole id stays in the title. */
const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id)

/** A detail value on one line: text as it is, a list of plain values comma-separated, anything else as JSON. */
function shown(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return value.length === 0 ? 'none' : value.join(', ')
  return JSON.stringify(value)
}

function Actor({ principal }: { principal: AuditEntry['principal'] }) {
  const kind = KIND_LABEL[principal.kind] ?? principal.kind
  if (!principal.id) return <>{kind}</>
  return (
    <>
      <span className="note">{kind}</span>{' '}
      <span title={principal.id}>{principal.name ?? shortId(principal.id)}</span>
    </>
  )
}

function Detail({ detail }: { detail: AuditEntry['detail'] }) {
  const entries = Object.entries(detail ?? {})
  if (entries.length === 0) return null
  return (
    <dl className="detail">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{shown(value)}</dd>
        </div>
      ))}
    </dl>
  )
}

/** One page of audit entries; an action or a target links to the entries that share it. */
export function AuditTable({
  entries,
  busy,
  hrefFor,
}: {
  entries: readonly AuditEntry[]
  busy: boolean
  /** The address of the entries that also share this action or target. */
  hrefFor: (filter: { action: string } | { targetId: string }) => string
}) {
  return (
    <table aria-busy={busy} className="audit">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">By</th>
          <th scope="col">Target</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>
              <TimeStamp iso={entry.createdAt} />
            </td>
            <td>
              <Link href={hrefFor({ action: entry.action })} title="Show only this action">
                {entry.action}
              </Link>
              {entry.outcome === 'failure' && <div className="state state-down">failed</div>}
            </td>
            <td>
              <Actor principal={entry.principal} />
            </td>
            <td>
              {entry.targetId ? (
                <Link
                  href={hrefFor({ targetId: entry.targetId })}
                  title={`Show only this target (${entry.targetId})`}
                >
                  {entry.targetName ?? shortId(entry.targetId)}
                </Link>
              ) : (
                '—'
              )}
            </td>
            <td>
              <Detail detail={entry.detail} />
              <div className="note">
                request <code>{entry.requestId}</code>
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

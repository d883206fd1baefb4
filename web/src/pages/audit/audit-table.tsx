import { Link } from 'wouter'
import { TimeStamp } from '../../components/time-stamp'
import type { AuditEntry } from './types'

/** One page of audit entries; an action or a target links to the entries that share it. */
export function AuditTable({
  entries,
  emails,
  busy,
  hrefFor,
}: {
  entries: readonly AuditEntry[]
  /** User ids to emails, when the reader may list users. */
  emails: ReadonlyMap<string, string>
  busy: boolean
  /** The address of the entries that also share this action or target. */
  hrefFor: (filter: { action: string } | { targetId: string }) => string
}) {
  return (
    <table aria-busy={busy}>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Action</th>
          <th scope="col">Outcome</th>
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
            </td>
            <td className={entry.outcome === 'failure' ? 'state state-down' : undefined}>{entry.outcome}</td>
            <td>
              {entry.principal.kind}
              {entry.principal.id && (
                <>
                  {' '}
                  <code>{emails.get(entry.principal.id) ?? entry.principal.id}</code>
                </>
              )}
            </td>
            <td>
              {entry.targetId ? (
                <Link href={hrefFor({ targetId: entry.targetId })} title="Show only this target">
                  <code>{entry.targetId}</code>
                </Link>
              ) : (
                '—'
              )}
            </td>
            <td>
              {entry.detail ? <code className="detail">{JSON.stringify(entry.detail)}</code> : '—'}
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

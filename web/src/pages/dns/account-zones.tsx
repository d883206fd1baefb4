import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { when } from './format'

/** The zones a dns account held at its last refresh (create, update, test or the hourly cron). */
export function AccountZones({ accountId, name }: { accountId: string; name: string }) {
  const zones = useQuery({
    queryKey: ['accounts', 'zones', accountId],
    queryFn: () => api.accounts.zones({ id: accountId, limit: 500 }),
  })
  if (zones.isPending) return <p className="loading">Loading zones…</p>
  if (zones.isError) return <QueryProblem error={zones.error} what={`the zones of ${name}`} />
  const { zones: list, refreshedAt } = zones.data
  return (
    <div className="zones-of-account">
      <p className="note">
        {refreshedAt
          ? `Refreshed ${when(refreshedAt)}.`
          : 'Never refreshed: the token has not passed a test yet.'}
      </p>
      {list.length === 0 ? (
        <p>No zones cached for {name}.</p>
      ) : (
        <ul aria-label={`Zones of ${name}`}>
          {list.map((zone) => (
            <li key={zone.id}>
              {zone.name} <code className="note">{zone.id}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

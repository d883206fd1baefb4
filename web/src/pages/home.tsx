import { useQuery } from '@tanstack/react-query'
import { api } from '../api'
import { QueryProblem } from '../components/query-problem'
import { useSession } from '../session'
import { CountTiles } from './overview/count-tiles'
import { FailingNow } from './overview/failing-now'

/** The first page after sign-in: how much there is, and what is down or failing now (refreshed every minute). */
export function HomePage() {
  const { me } = useSession()
  const summary = useQuery({
    queryKey: ['overview.summary'],
    queryFn: () => api.overview.summary({}),
    refetchInterval: 60_000,
  })
  return (
    <section>
      <h1>Overview</h1>
      <p>
        Signed in as <strong>{me.user?.email ?? me.kind}</strong>
        {me.user ? ` (${me.user.role})` : ''}.
      </p>
      {summary.isPending && <p className="loading">Loading the overview…</p>}
      <QueryProblem error={summary.error} what="the overview" />
      {summary.data && (
        <>
          <CountTiles summary={summary.data} />
          <FailingNow summary={summary.data} />
        </>
      )}
    </section>
  )
}

import { useQuery } from '@tanstack/react-query'
import { Link, useParams } from 'wouter'
import { api } from '../../api'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { TimeStamp } from '../../components/time-stamp'
import { useCursorPages } from '../../paged-list'
import { type Incident, incidentsKey, OpenIncidentForm, PostUpdateForm } from './incident-forms'

function IncidentCard({ incident }: { incident: Incident }) {
  return (
    <li className="card" data-incident={incident.id}>
      <h3>{incident.title}</h3>
      <p data-testid="incident-facts">
        {incident.state} · {incident.impact} impact
        {incident.automatic ? ' · opened automatically' : ''} · opened <TimeStamp iso={incident.createdAt} />
        {incident.resolvedAt && (
          <>
            {' '}
            · resolved <TimeStamp iso={incident.resolvedAt} />
          </>
        )}
      </p>
      <ol className="plain incident-updates" aria-label={`Updates of ${incident.title}, newest first`}>
        {incident.updates.map((update) => (
          <li key={update.id}>
            <strong>{update.state}</strong> <TimeStamp iso={update.at} />
            <p className="incident-message">{update.message}</p>
          </li>
        ))}
      </ol>
      <PostUpdateForm key={incident.updatedAt} incident={incident} />
    </li>
  )
}

/** A status page's incidents, newest first: each with its updates and a form to post one; and a new incident. */
export function IncidentsPage() {
  const { id = '' } = useParams<{ id: string }>()
  const page = useQuery({ queryKey: ['statusPages.get', id], queryFn: () => api.statusPages.get({ id }) })
  const list = useCursorPages(incidentsKey(id), (paging) =>
    api.statusPages.incidents.list({ statusPageId: id, ...paging }),
  )
  const incidents = list.data?.pages.flatMap((loaded) => loaded.incidents) ?? []
  return (
    <section>
      <p>
        <Link href="/monitoring/status-pages">Status pages</Link> /
      </p>
      <h1>Incidents{page.data ? ` of ${page.data.title}` : ''}</h1>
      <QueryProblem error={page.error ?? list.error} what="this status page" />
      {page.data && (
        <p className="note">
          {page.data.public ? (
            <>
              Shown on <a href={page.data.url}>{page.data.url}</a>: open incidents first, then those resolved
              in the last 90 days, each with every update.
            </>
          ) : (
            'The page is private: nobody else sees these incidents until it is made public.'
          )}{' '}
          {page.data.autoIncidents
            ? 'A listed probe going down opens an incident by itself, resolved when the probe is back.'
            : 'Incidents are opened by hand here (automatic incidents are off for this page).'}
        </p>
      )}
      {!list.isPending && incidents.length === 0 ? (
        <p>No incidents yet.</p>
      ) : (
        <ul className="plain" aria-label="Incidents, newest first">
          {incidents.map((incident) => (
            <IncidentCard key={incident.id} incident={incident} />
          ))}
        </ul>
      )}
      <LoadMore pages={list} what="incidents" />
      {page.data && <OpenIncidentForm page={page.data} />}
    </section>
  )
}

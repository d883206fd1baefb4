import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { AttachForm } from './attach-form'
import { DomainCard } from './domain-card'

/** The site's domains, each with its attach progress, and the attach form for those who may attach. */
export function DomainsCard({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const list = useQuery({ queryKey: ['domains.list', siteId], queryFn: () => api.domains.list({ siteId }) })
  const drivers = useQuery({ queryKey: ['domains.drivers'], queryFn: () => api.domains.drivers({}) })
  const proxyable = (id: string) => drivers.data?.drivers.find((d) => d.id === id)?.supportsProxy ?? false
  return (
    <section aria-labelledby="domains-heading" className="card-section">
      <h3 id="domains-heading">Domains</h3>
      <QueryProblem error={list.error} what="the domains" />
      {list.data && (
        <p className="note">
          DNS target of the site's node: {list.data.target ? <code>{list.data.target}</code> : 'none set'}
        </p>
      )}
      {list.data?.domains.length === 0 && <p className="note">No domain attached.</p>}
      {list.data?.domains.map((domain) => (
        <DomainCard key={domain.id} row={domain} supportsProxy={proxyable(domain.driver)} />
      ))}
      {can('domains:manage') && drivers.data && <AttachForm siteId={siteId} drivers={drivers.data} />}
      <QueryProblem error={drivers.error} what="the DNS drivers" />
    </section>
  )
}

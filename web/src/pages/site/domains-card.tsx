import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { SearchBox } from '../../components/search-box'
import { useSession } from '../../session'
import { AttachForm } from './attach-form'
import { DomainCard } from './domain-card'
import { useDomainPages } from './site-lists'

/**
 * The site's domains, a page at a time and searchable by hostname, each with its attach progress, and the attach
 * form for those who may attach.
 */
export function DomainsCard({ siteId }: { siteId: string }) {
  const { can } = useSession()
  const [search, setSearch] = useState('')
  const list = useDomainPages(siteId, search)
  const drivers = useQuery({ queryKey: ['domains.drivers'], queryFn: () => api.domains.drivers({}) })
  const proxyable = (id: string) => drivers.data?.drivers.find((d) => d.id === id)?.supportsProxy ?? false
  const target = list.data?.pages[0]?.target
  const domains = list.data?.pages.flatMap((page) => page.domains)
  return (
    <section aria-labelledby="domains-heading" className="card-section">
      <h3 id="domains-heading">Domains</h3>
      <QueryProblem error={list.error} what="the domains" />
      {list.data && (
        <p className="note">DNS target of the site's node: {target ? <code>{target}</code> : 'none set'}</p>
      )}
      <SearchBox label="Search domains" value={search} onSearch={setSearch} />
      {domains?.length === 0 && (
        <p className="note">{search ? 'No domain matches.' : 'No domain attached.'}</p>
      )}
      {domains?.map((domain) => (
        <DomainCard key={domain.id} row={domain} supportsProxy={proxyable(domain.driver)} />
      ))}
      <LoadMore pages={list} what="domains" />
      {can('domains:manage') && drivers.data && <AttachForm siteId={siteId} drivers={drivers.data} />}
      <QueryProblem error={drivers.error} what="the DNS drivers" />
    </section>
  )
}

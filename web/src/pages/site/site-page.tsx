import { useQuery } from '@tanstack/react-query'
import { Link, useParams } from 'wouter'
import { api } from '../../api'
import { QueryProblem } from '../../components/query-problem'
import { useSession } from '../../session'
import { CustomHostnamesCard } from './custom-hostnames-card'
import { DomainsCard } from './domains-card'
import { RoutesCard } from './routes-card'
import { useDomainPages, useHostnamePages, useRoutePages } from './site-lists'

/** One site: where it runs, and its Networking (domains, routes, custom hostnames) as far as the role may see. */
export function SitePage() {
  const { id = '' } = useParams<{ id: string }>()
  const { can } = useSession()
  const site = useQuery({ queryKey: ['sites.get', id], queryFn: () => api.sites.get({ id }) })
  // The cards' first pages are asked for beside the site, not after it (the cards read the same queries).
  useDomainPages(id, '', can('domains:view'))
  useRoutePages(id, '', can('domains:view'))
  useHostnamePages(id, '', can('custom-hostnames:view'))
  const instanceId = site.data?.instanceId
  const instance = useQuery({
    queryKey: ['instances.get', instanceId],
    queryFn: () => api.instances.get({ id: instanceId ?? '' }),
    enabled: instanceId !== undefined,
  })
  const nodeId = instance.data?.nodeId
  const node = useQuery({
    queryKey: ['nodes.get', nodeId],
    queryFn: () => api.nodes.get({ id: nodeId ?? '' }),
    enabled: nodeId !== undefined,
  })
  if (site.isPending) return <p className="loading">Loading…</p>
  if (!site.data)
    return (
      <section>
        <h1>Site</h1>
        <QueryProblem error={site.error} what="site" />
        <Link href="/fleet">Back to the fleet</Link>
      </section>
    )
  return (
    <section>
      <p className="note">
        <Link href="/fleet">Fleet</Link> / site
      </p>
      <h1>{site.data.name}</h1>
      <dl className="facts">
        <dt>Instance</dt>
        <dd>
          {instance.data?.name ?? site.data.instanceId}
          {instance.data ? (
            <>
              {' '}
              at <code>{instance.data.address}</code>
            </>
          ) : null}
        </dd>
        <dt>Node</dt>
        <dd>
          {node.data ? `${node.data.name}${node.data.dnsTarget ? ` (${node.data.dnsTarget})` : ''}` : '—'}
        </dd>
        <dt>Port</dt>
        <dd>{site.data.port ?? '80 (default)'}</dd>
        <dt>Site id</dt>
        <dd>
          <code>{site.data.id}</code>
        </dd>
      </dl>
      <h2>Networking</h2>
      {can('domains:view') && <DomainsCard siteId={site.data.id} />}
      {can('domains:view') && <RoutesCard siteId={site.data.id} instanceId={site.data.instanceId} />}
      {can('custom-hostnames:view') && <CustomHostnamesCard siteId={site.data.id} />}
    </section>
  )
}

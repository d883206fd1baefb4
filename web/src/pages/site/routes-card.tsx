import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../../api'
import { ConfirmButton } from '../../components/confirm-button'
import { FormProblem } from '../../components/form-problem'
import { LoadMore } from '../../components/load-more'
import { QueryProblem } from '../../components/query-problem'
import { SearchBox } from '../../components/search-box'
import { useSession } from '../../session'
import { DNS_WAIT_TEXT, type DnsWait, useDnsWaits } from './dns-waits'
import { RawRouteForm } from './raw-route-form'
import { useRoutePages } from './site-lists'
import type { RouteRow } from './types'

function nameOf(route: RouteRow): string {
  return route.kind === 'http'
    ? (route.hostname ?? 'http route')
    : `${route.proto ?? 'tcp'} ${route.listenPort ?? '?'}`
}

function describe(route: RouteRow): string {
  if (route.kind === 'http') return `https://${route.hostname ?? '?'} → instance port ${route.targetPort}`
  return `${route.proto ?? 'tcp'} ${route.listenPort ?? '?'} → instance port ${route.targetPort}`
}

function RouteStatus({ route, wait }: { route: RouteRow; wait: DnsWait | undefined }) {
  if (wait && route.status !== 'removed')
    return (
      <>
        <span className="state state-pending">{DNS_WAIT_TEXT[wait]}</span>
        <div className="note">route {route.status} on the node</div>
      </>
    )
  return (
    <span className={`state state-${route.status}`}>
      {route.status === 'removed' ? 'removed, leaving the node' : route.status}
    </span>
  )
}

/**
 * The site's routes (http from domains and custom hostnames, raw forwards), a page at a time and searchable by
 * hostname, with reconcile and remove. An http
 * route whose hostname does not point here yet says so instead of reading as serving.
 */
export function RoutesCard({ siteId, instanceId }: { siteId: string; instanceId: string }) {
  const { can } = useSession()
  const manage = can('routes:manage')
  const queryClient = useQueryClient()
  const [search, setSearch] = useState('')
  const routes = useRoutePages(siteId, search)
  const rows = routes.rows
  const waits = useDnsWaits(siteId)
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['routes.listForSite', siteId] })
  const reconcile = useMutation({
    mutationFn: (id: string) => api.routes.reconcile({ id }),
    onSuccess: refresh,
  })
  const remove = useMutation({
    mutationFn: (id: string) => api.routes.remove({ id }),
    // Removing a domain's route fails that domain: its card says so.
    onSuccess: () => Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: ['domains.get'] })]),
  })
  return (
    <section aria-labelledby="routes-heading" className="card-section">
      <h3 id="routes-heading">Routes</h3>
      <QueryProblem error={routes.error} what="the routes" />
      <SearchBox label="Search routes" value={search} onSearch={setSearch} placeholder="hostname" />
      {rows?.length === 0 && (
        <p className="note">
          {search ? 'No route matches.' : 'No route: attach a domain or open a forward.'}
        </p>
      )}
      {rows && rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Route</th>
              <th scope="col">Status</th>
              <th
                scope="col"
                title="The node's config version with this route: applied by the node / desired"
              >
                Config version
                <span className="hint"> (applied / desired)</span>
              </th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((route) => (
              <tr key={route.id}>
                <td>
                  {describe(route)}
                  {route.deviceName && (
                    <span className="note">
                      {' '}
                      (<code>{route.deviceName}</code>)
                    </span>
                  )}
                </td>
                <td data-testid="route-status">
                  <RouteStatus route={route} wait={route.hostname ? waits.get(route.hostname) : undefined} />
                  {route.edgeConfig.error && <div className="field-error">{route.edgeConfig.error}</div>}
                </td>
                <td>
                  {route.edgeConfig.appliedVersion ?? '—'} / {route.configVersion}
                </td>
                {manage && (
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="secondary"
                        disabled={reconcile.isPending}
                        onClick={() => reconcile.mutate(route.id)}
                        aria-label={`Reconcile ${nameOf(route)}`}
                      >
                        Reconcile
                      </button>
                      {route.status !== 'removed' && (
                        <ConfirmButton
                          label={`Remove ${nameOf(route)}`}
                          confirmLabel={`Yes, remove ${nameOf(route)}`}
                          text="Remove"
                          confirmText="Yes, remove"
                          pending={remove.isPending}
                          onConfirm={() => remove.mutate(route.id)}
                        />
                      )}
                    </div>
                    {reconcile.variables === route.id && <FormProblem error={reconcile.error} />}
                    {remove.variables === route.id && <FormProblem error={remove.error} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={routes} what="routes" />
      {manage && <RawRouteForm siteId={siteId} instanceId={instanceId} />}
    </section>
  )
}

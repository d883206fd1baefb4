import { useQuery } from '@tanstack/react-query'
import { api } from '../../api'

export type Scope = Parameters<typeof api.accounts.setDefault>[0]['scope']

export interface ScopeTarget {
  id: string
  label: string
}

async function loadTargets(scope: Scope): Promise<ScopeTarget[]> {
  if (scope === 'node')
    return (await api.nodes.list({ limit: 500 })).map((n) => ({ id: n.id, label: n.name }))
  if (scope === 'instance') {
    const [nodes, instances] = await Promise.all([
      api.nodes.list({ limit: 500 }),
      api.instances.list({ limit: 500 }),
    ])
    const nodeName = new Map(nodes.map((n) => [n.id, n.name]))
    return instances.map((i) => ({ id: i.id, label: `${i.name} (on ${nodeName.get(i.nodeId) ?? i.nodeId})` }))
  }
  // Domains are listed per site; a panel has few enough sites to ask for each.
  const sites = await api.sites.list({ limit: 500 })
  const perSite = await Promise.all(
    sites.map(async (site) =>
      (await api.domains.list({ siteId: site.id })).domains.map((d) => ({
        id: d.id,
        label: `${d.hostname} (site ${site.name})`,
      })),
    ),
  )
  return perSite.flat()
}

/** The nodes, instances or domains a default can be set on. */
export function useScopeTargets(scope: Scope) {
  return useQuery({ queryKey: ['accounts', 'scope-targets', scope], queryFn: () => loadTargets(scope) })
}

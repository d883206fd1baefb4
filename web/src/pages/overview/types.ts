import type { api } from '../../api'

export type Summary = Awaited<ReturnType<typeof api.overview.summary>>
export type AreaKey = keyof Summary
export type Area = NonNullable<Summary[AreaKey]>
export type Failing = Area['named'][number]

/** Each area as the overview shows it: its page, and the words for its failing and its waiting things. */
export const AREAS: readonly {
  key: AreaKey
  label: string
  one: string
  href: string
  failing?: string
  waiting?: string
}[] = [
  { key: 'nodes', label: 'Nodes', one: 'node', href: '/fleet', failing: 'unhealthy' },
  { key: 'sites', label: 'Sites', one: 'site', href: '/fleet' },
  {
    key: 'domains',
    label: 'Domains',
    one: 'domain',
    href: '/fleet',
    failing: 'failed',
    waiting: 'in progress',
  },
  {
    key: 'customHostnames',
    label: 'Custom hostnames',
    one: 'custom hostname',
    href: '/fleet',
    failing: 'failed',
    waiting: 'waiting for DNS records',
  },
  {
    key: 'probes',
    label: 'Probes',
    one: 'probe',
    href: '/monitoring',
    failing: 'down',
    waiting: 'waiting for a first check',
  },
  { key: 'jobs', label: 'Failed jobs', one: 'job', href: '/jobs', failing: 'dead-lettered' },
]

/** Where a failing thing is looked after: a probe's page, a hostname's site, the fleet for a node. */
export function hrefOf(area: AreaKey, item: Failing): string {
  if (area === 'probes') return `/monitoring/probes/${item.id}`
  if (area === 'jobs') return '/jobs?state=dead'
  if (item.siteId) return `/sites/${item.siteId}`
  return '/fleet'
}

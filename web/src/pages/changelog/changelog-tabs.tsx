import { type AreaTab, AreaTabs } from '../../components/area-tabs'

const TABS: readonly AreaTab[] = [
  { href: '/changelog', label: 'Releases', permission: 'changelog:manage' },
  { href: '/changelog/webhooks', label: 'Webhooks', permission: 'settings:view' },
  { href: '/changelog/mirror', label: 'Mirror', permission: 'settings:view' },
]

/** The changelog's pages the principal may open. */
export function ChangelogTabs() {
  return <AreaTabs label="Changelog" tabs={TABS} />
}

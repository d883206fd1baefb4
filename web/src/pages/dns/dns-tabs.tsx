import { type AreaTab, AreaTabs } from '../../components/area-tabs'

const TABS: readonly AreaTab[] = [
  { href: '/dns/zones', label: 'Zones', permission: 'domains:view' },
  { href: '/dns/nameservers', label: 'Nameservers', permission: 'domains:view' },
  { href: '/dns/accounts', label: 'Provider accounts', permission: 'settings:view' },
]

/** The DNS area's own navigation. */
export function DnsTabs() {
  return <AreaTabs label="DNS" tabs={TABS} />
}

import { type AreaTab, AreaTabs } from '../../components/area-tabs'

const TABS: readonly AreaTab[] = [
  { href: '/monitoring', label: 'Probes', permission: 'probes:view' },
  { href: '/monitoring/channels', label: 'Channels', permission: 'probes:view' },
  { href: '/monitoring/status-pages', label: 'Status pages', permission: 'probes:view' },
  { href: '/monitoring/maintenance', label: 'Maintenance', permission: 'probes:view' },
]

/** The monitoring area's own navigation. */
export function MonitoringTabs() {
  return <AreaTabs label="Monitoring" tabs={TABS} />
}

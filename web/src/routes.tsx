import type { ComponentType } from 'react'
import { AccountPage } from './pages/account/account-page'
import { AuditPage } from './pages/audit/audit-page'
import { MirrorPage } from './pages/changelog/mirror-page'
import { ReleasePage } from './pages/changelog/release-page'
import { ReleasesPage } from './pages/changelog/releases-page'
import { WebhooksPage } from './pages/changelog/webhooks-page'
import { AccountsPage } from './pages/dns/accounts-page'
import { NameserversPage } from './pages/dns/nameservers-page'
import { ZonePage } from './pages/dns/zone-page'
import { ZonesPage } from './pages/dns/zones-page'
import { FleetPage } from './pages/fleet/fleet-page'
import { HomePage } from './pages/home'
import { JobsPage } from './pages/jobs/jobs-page'
import { MaintenancePage } from './pages/maintenance/maintenance-page'
import { ChannelsPage } from './pages/monitoring/channels-page'
import { ProbePage } from './pages/monitoring/probe-page'
import { ProbesPage } from './pages/monitoring/probes-page'
import { NotificationsPage } from './pages/settings/notifications-page'
import { SitePage } from './pages/site/site-page'
import { IncidentsPage } from './pages/status-pages/incidents-page'
import { StatusPagesPage } from './pages/status-pages/status-pages-page'
import { TokensPage } from './pages/tokens/tokens-page'
import { UsersPage } from './pages/users/users-page'
import type { Permission } from './session'

/** One page of the panel: its path (wouter syntax), the permission it needs, and its entry in the navigation. */
export interface PageRoute {
  path: string
  component: ComponentType
  /** Shown only to principals holding it; absent for pages any signed-in principal sees. */
  permission?: Permission
  /** The navigation label; pages reached from another page (a site, a probe) have none. */
  nav?: string
}

// Each area adds its pages here.
export const routes: PageRoute[] = [
  { path: '/', component: HomePage, nav: 'Overview' },
  { path: '/fleet', component: FleetPage, permission: 'fleet:view', nav: 'Fleet' },
  { path: '/sites/:id', component: SitePage, permission: 'fleet:view' },
  { path: '/dns/zones', component: ZonesPage, permission: 'domains:view', nav: 'DNS' },
  { path: '/dns/zones/:id', component: ZonePage, permission: 'domains:view' },
  { path: '/dns/nameservers', component: NameserversPage, permission: 'domains:view' },
  { path: '/dns/accounts', component: AccountsPage, permission: 'settings:view' },
  { path: '/monitoring', component: ProbesPage, permission: 'probes:view', nav: 'Monitoring' },
  { path: '/monitoring/probes/:id', component: ProbePage, permission: 'probes:view' },
  { path: '/monitoring/channels', component: ChannelsPage, permission: 'probes:view' },
  { path: '/monitoring/status-pages', component: StatusPagesPage, permission: 'probes:view' },
  { path: '/monitoring/status-pages/:id', component: IncidentsPage, permission: 'probes:manage' },
  { path: '/monitoring/maintenance', component: MaintenancePage, permission: 'probes:view' },
  { path: '/changelog', component: ReleasesPage, nav: 'Changelog' },
  { path: '/changelog/releases/:id', component: ReleasePage, permission: 'changelog:manage' },
  { path: '/changelog/webhooks', component: WebhooksPage, permission: 'settings:view' },
  { path: '/changelog/mirror', component: MirrorPage, permission: 'settings:view' },
  { path: '/users', component: UsersPage, permission: 'users:manage', nav: 'Users' },
  { path: '/tokens', component: TokensPage, permission: 'tokens:manage', nav: 'API tokens' },
  { path: '/jobs', component: JobsPage, permission: 'settings:view', nav: 'Jobs' },
  { path: '/audit', component: AuditPage, permission: 'audit:view', nav: 'Audit log' },
  { path: '/account', component: AccountPage },
  {
    path: '/settings/notifications',
    component: NotificationsPage,
    permission: 'settings:view',
    nav: 'Notifications',
  },
]

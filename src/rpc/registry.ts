import { auditProcedures } from '../audit/procedures'
import { authProcedures } from '../auth/procedures'
import { metaProcedures } from '../changelog/meta-procedures'
import { changelogProcedures } from '../changelog/procedures'
import { customHostnamesProcedures } from '../custom-hostnames/procedures'
import { accountsProcedures } from '../dns-accounts/procedures'
import { dnsServersProcedures } from '../dns-servers/procedures'
import { domainsProcedures } from '../domains/procedures'
import { instancesProcedures } from '../fleet/instances'
import { nodesProcedures } from '../fleet/nodes'
import { sitesProcedures } from '../fleet/sites'
import { jobsProcedures } from '../jobs/procedures'
import { maintenanceProcedures } from '../maintenance/procedures'
import { channelProcedures } from '../notifications/channel-procedures'
import { notificationsProcedures } from '../notifications/procedures'
import { overviewProcedures } from '../overview/procedures'
import { probesProcedures } from '../probes/procedures'
import { routesProcedures } from '../routes/procedures'
import { siteTokensProcedures } from '../site-tokens/procedures'
import { incidentsProcedures } from '../status-pages/incidents/procedures'
import { statusPagesProcedures } from '../status-pages/procedures'
import { statusPageSubscriberProcedures } from '../status-pages/subscribers/procedures'
import { tokensProcedures } from '../tokens/procedures'
import { usersProcedures } from '../users/procedures'
import { flattenRouter } from './define'

/** The one registry: every procedure, keyed by its dotted name's parts. */
export const router = {
  auth: authProcedures,
  users: usersProcedures,
  tokens: tokensProcedures,
  nodes: nodesProcedures,
  instances: instancesProcedures,
  sites: { ...sitesProcedures, tokens: siteTokensProcedures },
  audit: auditProcedures,
  meta: metaProcedures,
  changelog: changelogProcedures,
  accounts: accountsProcedures,
  dnsServers: dnsServersProcedures,
  customHostnames: customHostnamesProcedures,
  routes: routesProcedures,
  domains: domainsProcedures,
  probes: probesProcedures,
  statusPages: {
    ...statusPagesProcedures,
    ...statusPageSubscriberProcedures,
    incidents: incidentsProcedures,
  },
  maintenance: maintenanceProcedures,
  overview: overviewProcedures,
  jobs: jobsProcedures,
  settings: { notifications: notificationsProcedures },
  notifications: { channels: channelProcedures },
} as const

export type Router = typeof router

export const procedures = flattenRouter(router)

import { and, asc, eq, ne, sql } from 'drizzle-orm'
import { customHostnameIssuable } from '../custom-hostnames/issuable'
import type { Db } from '../db/client'
import { customHostnameSettings, customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { routes } from '../db/schema/routes'
import type { Issuance, LiveRoute } from './render'

// What decides a route's certificate: the claim its hostname is held by (from the route's own site) and, for a
// custom hostname, the row and its site's ask URL. The joins every read of rendered routes makes.
export const claimOfRoute = and(
  eq(hostnameClaims.hostname, routes.hostname),
  eq(hostnameClaims.siteId, routes.siteId),
)
export const customHostnameOfClaim = and(
  eq(hostnameClaims.kind, 'custom-hostname'),
  eq(customHostnames.id, hostnameClaims.ownerId),
)
export const settingsOfCustomHostname = eq(customHostnameSettings.siteId, customHostnames.siteId)

/** The columns a route renders from (with the joins above). */
export const renderedColumns = {
  edgeConfig: routes.edgeConfig,
  claimKind: hostnameClaims.kind,
  state: customHostnames.state,
  dnsResolvedAt: customHostnames.dnsResolvedAt,
  askUrl: customHostnameSettings.askUrl,
}

/** The node's live routes in order, each with what decides its certificate. For a read batch. */
export function selectLiveRoutes(db: Db, nodeId: string) {
  return db
    .select(renderedColumns)
    .from(routes)
    .leftJoin(hostnameClaims, claimOfRoute)
    .leftJoin(customHostnames, customHostnameOfClaim)
    .leftJoin(customHostnameSettings, settingsOfCustomHostname)
    .where(and(eq(routes.nodeId, nodeId), ne(routes.status, 'removed')))
    .orderBy(asc(routes.createdAt), asc(sql`${routes}.rowid`))
}

/** A route as read with `renderedColumns`. */
export type RenderedRow = Awaited<ReturnType<typeof selectLiveRoutes>>[number]

// A domain's flow verified its DNS before the certificate step; a custom hostname follows its site's ask URL or
// the panel's own check; a hostname nobody claims for the route's site gets no certificate.
function issuanceOf(route: Omit<RenderedRow, 'edgeConfig'>): Issuance {
  if (route.claimKind === 'domain') return { issuable: true, askUrl: null }
  if (route.state === null) return { issuable: false, askUrl: null }
  return {
    issuable: customHostnameIssuable({ state: route.state, dnsResolvedAt: route.dnsResolvedAt }),
    askUrl: route.askUrl,
  }
}

/** A row read with `renderedColumns` as the edge state renders it. */
export function toLiveRoute(route: RenderedRow): LiveRoute {
  return { edgeConfig: route.edgeConfig, issuance: issuanceOf(route) }
}

/** The selected rows as the edge state renders them. */
export function toLiveRoutes(selected: readonly RenderedRow[]): LiveRoute[] {
  return selected.map(toLiveRoute)
}

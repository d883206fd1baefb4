import { and, eq, ne } from 'drizzle-orm'
import type { Vhost } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { resolveAccount } from '../dns-accounts/cascade'
import { addHttpRoute, type RouteWrites, removeRoute } from '../routes/http-route'

async function liveRouteId(db: Db, hostname: string): Promise<string | null> {
  const [live] = await db
    .select({ id: routes.id })
    .from(routes)
    .where(and(eq(routes.hostname, hostname), ne(routes.status, 'removed')))
    .limit(1)
  return live?.id ?? null
}

/** The issuer of the site's certificates: its ssl-issuer default (instance, then node) when that is pebble. */
export async function issuerFor(db: Db, siteId: string): Promise<Vhost['issuer']> {
  const [site] = await db.select({ instanceId: sites.instanceId }).from(sites).where(eq(sites.id, siteId))
  if (!site) return 'letsencrypt'
  const { account } = await resolveAccount(db, 'ssl-issuer', { instanceId: site.instanceId })
  return account?.provider === 'pebble' ? 'pebble' : 'letsencrypt'
}

/**
 * The writes that route a registered hostname to its site (so the node serves it and its certificate can be
 * issued on demand), for the register batch; null when a live route holds it already.
 */
export async function routeHostname(db: Db, siteId: string, hostname: string): Promise<RouteWrites | null> {
  if (await liveRouteId(db, hostname)) return null
  return addHttpRoute(db, { siteId, hostname, issuer: await issuerFor(db, siteId) })
}

/** The writes that take the hostname's route off its node, for the remove batch; null when it has none. */
export async function unrouteHostname(db: Db, hostname: string): Promise<RouteWrites | null> {
  const id = await liveRouteId(db, hostname)
  return id ? removeRoute(db, id) : null
}

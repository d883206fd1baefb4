import { and, eq, ne, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client'
import { routes } from '../db/schema/routes'
import type { Env } from '../env'
import { bumpVersion, type EdgeChange, enqueueReconcile } from './versions'

// The edge state also renders what decides certificates (custom-hostname rows, ask URLs), which change without
// touching a route: a new version makes the node take the new rendering.
async function pushNodeOfLiveRoute(
  env: Env,
  db: Db,
  where: SQL,
  change: (hostname: string) => EdgeChange,
): Promise<void> {
  const [route] = await db
    .select({ nodeId: routes.nodeId, hostname: routes.hostname })
    .from(routes)
    .where(and(where, eq(routes.kind, 'http'), ne(routes.status, 'removed')))
    .limit(1)
  if (!route?.hostname) return
  await db.batch(bumpVersion(db, route.nodeId, new Date(), change(route.hostname)))
  await enqueueReconcile(env, route.nodeId)
}

/**
 * After a commit that changed whether the node may obtain the hostname's certificate (its custom-hostname row
 * turned active, or a lookup first saw its records resolve): pushes the hostname's vhost to the node that routes
 * it. Nothing when no live route holds the hostname.
 */
export function reconcileNodeOfHostname(env: Env, db: Db, hostname: string): Promise<void> {
  return pushNodeOfLiveRoute(env, db, eq(routes.hostname, hostname), (vhost) => ({ vhost }))
}

/**
 * After a commit that changed the site's ask URL: pushes the node serving its hostnames, all of which render the
 * new URL (a change that names no single entry: the node gets its whole state).
 */
export function reconcileNodeOfSite(env: Env, db: Db, siteId: string): Promise<void> {
  return pushNodeOfLiveRoute(env, db, eq(routes.siteId, siteId), () => 'everything')
}

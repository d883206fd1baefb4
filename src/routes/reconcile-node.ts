import { and, eq, ne, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client'
import { routes } from '../db/schema/routes'
import type { Env } from '../env'
import { bumpVersion, enqueueReconcile } from './versions'

// The edge state also renders what decides certificates (custom-hostname rows, ask URLs), which change without
// touching a route: a new version makes the node take the new rendering.
async function pushNodeOfLiveRoute(env: Env, db: Db, where: SQL): Promise<void> {
  const [route] = await db
    .select({ nodeId: routes.nodeId })
    .from(routes)
    .where(and(where, eq(routes.kind, 'http'), ne(routes.status, 'removed')))
    .limit(1)
  if (!route) return
  await bumpVersion(db, route.nodeId, new Date())
  await enqueueReconcile(env, route.nodeId)
}

/**
 * After a commit that changed whether the node may obtain the hostname's certificate (its custom-hostname row
 * turned active, or a lookup first saw its records resolve): pushes the edge state of the node that routes it.
 * Nothing when no live route holds the hostname.
 */
export function reconcileNodeOfHostname(env: Env, db: Db, hostname: string): Promise<void> {
  return pushNodeOfLiveRoute(env, db, eq(routes.hostname, hostname))
}

/** After a commit that changed the site's ask URL: pushes the edge state of the node serving its hostnames. */
export function reconcileNodeOfSite(env: Env, db: Db, siteId: string): Promise<void> {
  return pushNodeOfLiveRoute(env, db, eq(routes.siteId, siteId))
}

import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { routes } from '../db/schema/routes'
import { notFound } from '../rpc/errors'
import type { RouteRow } from './schemas'

export type RouteRecord = typeof routes.$inferSelect

/** The row as the API shows it: everything but the node, which the instance names. */
export function toRouteRow(route: RouteRecord): RouteRow {
  const { nodeId: _, createdAt, updatedAt, ...rest } = route
  return { ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() }
}

/** The route with this id, or 404. */
export async function getRoute(db: Db, id: string): Promise<RouteRecord> {
  const [route] = await db.select().from(routes).where(eq(routes.id, id)).limit(1)
  if (!route) throw notFound(`route ${id}`)
  return route
}

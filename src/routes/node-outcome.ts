import { and, eq, inArray, lte, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { nodeEdgeVersions, routes } from '../db/schema/routes'

/**
 * The node serves `version`: every live route it covers is active (an error it had is gone), every removed route
 * it covers is deleted, and the node's applied version rises to it. A newer version may already be desired; its
 * own job confirms the routes changed since.
 */
export async function recordApplied(
  database: Db,
  nodeId: string,
  version: number,
  firewallManaged: boolean,
): Promise<void> {
  const now = new Date()
  const covered = and(eq(routes.nodeId, nodeId), lte(routes.configVersion, version))
  await database.batch([
    database
      .update(routes)
      .set({
        status: 'active',
        edgeConfig: sql`json_set(${routes.edgeConfig}, '$.appliedVersion', ${version}, '$.error', null, '$.firewallManaged', case when ${routes.kind} = 'raw' then json(${firewallManaged ? 'true' : 'false'}) end)`,
        updatedAt: now,
      })
      .where(and(covered, inArray(routes.status, ['pending', 'active', 'error']))),
    database.delete(routes).where(and(covered, eq(routes.status, 'removed'))),
    database
      .update(nodeEdgeVersions)
      .set({
        applied: sql`max(${nodeEdgeVersions.applied}, ${version})`,
        state: sql`case when ${nodeEdgeVersions.desired} <= ${version} then 'applied' else ${nodeEdgeVersions.state} end`,
        lastError: sql`case when ${nodeEdgeVersions.desired} <= ${version} then null else ${nodeEdgeVersions.lastError} end`,
        updatedAt: now,
      })
      .where(eq(nodeEdgeVersions.nodeId, nodeId)),
  ])
}

/**
 * The node did not take `version` (the agent refused it, or could not be reached in time). Only while it is
 * still the newest version: the routes it covers that no applied version confirmed get the reason (live ones turn
 * `error`, removed ones stay removed); active routes stay active, since the agent keeps its previous config.
 */
export async function recordFailed(
  database: Db,
  nodeId: string,
  version: number,
  reason: string,
): Promise<void> {
  const now = new Date()
  const stillNewest = eq(
    sql`(select ${nodeEdgeVersions.desired} from ${nodeEdgeVersions} where ${nodeEdgeVersions.nodeId} = ${nodeId})`,
    version,
  )
  await database.batch([
    database
      .update(routes)
      .set({
        status: sql`case when ${routes.status} = 'removed' then 'removed' else 'error' end`,
        edgeConfig: sql`json_set(${routes.edgeConfig}, '$.error', ${reason})`,
        updatedAt: now,
      })
      .where(
        and(
          eq(routes.nodeId, nodeId),
          lte(routes.configVersion, version),
          inArray(routes.status, ['pending', 'error', 'removed']),
          stillNewest,
        ),
      ),
    database
      .update(nodeEdgeVersions)
      .set({ state: 'failed', lastError: reason, updatedAt: now })
      .where(and(eq(nodeEdgeVersions.nodeId, nodeId), eq(nodeEdgeVersions.desired, version))),
  ])
}

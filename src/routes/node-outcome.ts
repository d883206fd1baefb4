import { and, eq, gt, inArray, isNotNull, isNull, lte, type SQL, sql } from 'drizzle-orm'
import type { EntryFailure } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { nodeEdgeChanges, nodeEdgeVersions, routes } from '../db/schema/routes'

// The agent's reason for not serving the route being updated, from the failed entries of its answer (a JSON
// array bound as one parameter; a node has at most 1,000 forwards, and vhosts fail only when they cannot be
// rendered at all), or null when the route serves.
function failureOf(failed: readonly EntryFailure[]) {
  const entries = JSON.stringify(failed)
  return sql<string | null>`(select json_extract(f.value, '$.error') from json_each(${entries}) f where
    (${routes.kind} = 'http' and json_extract(f.value, '$.kind') = 'vhost'
      and json_extract(f.value, '$.hostname') = ${routes.hostname})
    or (${routes.kind} = 'raw' and json_extract(f.value, '$.kind') = 'forward'
      and json_extract(f.value, '$.listenPort') = ${routes.listenPort}
      and json_extract(f.value, '$.proto') = ${routes.proto})
    limit 1)`
}

/**
 * Which of the node's routes an answer speaks for: a whole state, every route of the node; changes on `base`,
 * the live routes of the changed entries (`routeIds`) and the routes removed after `base`, so recording it costs
 * what the change is.
 */
export type AppliedScope = { kind: 'whole' } | { kind: 'changed'; base: number; routeIds: readonly string[] }

function scoped(nodeId: string, version: number, scope: AppliedScope): { live: SQL; removed: SQL } {
  const covered = and(eq(routes.nodeId, nodeId), lte(routes.configVersion, version)) as SQL
  const statuses = inArray(routes.status, ['pending', 'active', 'error'])
  const removed = eq(routes.status, 'removed')
  if (scope.kind === 'whole')
    return { live: and(covered, statuses) as SQL, removed: and(covered, removed) as SQL }
  // The ids travel as one JSON parameter, whatever their number (D1 binds at most 100 per statement). The rows are
  // found by id: the unary + keeps the planner off the (node, version) index, whose range holds every route.
  const changed = sql`${routes.id} in (select value from json_each(${JSON.stringify(scope.routeIds)}))`
  const ofNode = sql`+${routes.nodeId} = ${nodeId} and +${routes.configVersion} <= ${version}`
  return {
    live: and(changed, ofNode, statuses) as SQL,
    removed: and(covered, gt(routes.configVersion, scope.base), removed) as SQL,
  }
}

/**
 * The node serves `version`: every live route the answer speaks for (`scope`) is active (an error it had is
 * gone), except those whose entry the agent answered failed, which turn `error` with its reason (the node tries
 * them again on every whole state); every removed route it covers is deleted, the log of the versions up to it
 * is pruned, and the node's applied version rises to it. A newer version may already be desired; its own job
 * confirms the routes changed since.
 */
export async function recordApplied(
  database: Db,
  nodeId: string,
  version: number,
  firewallManaged: boolean,
  failed: readonly EntryFailure[],
  scope: AppliedScope,
): Promise<void> {
  const now = new Date()
  const { live, removed } = scoped(nodeId, version, scope)
  const failure = failureOf(failed)
  await database.batch([
    database
      .update(routes)
      .set({
        status: 'active',
        edgeConfig: sql`json_set(${routes.edgeConfig}, '$.appliedVersion', ${version}, '$.error', null, '$.firewallManaged', case when ${routes.kind} = 'raw' then json(${firewallManaged ? 'true' : 'false'}) end)`,
        updatedAt: now,
      })
      .where(failed.length === 0 ? live : and(live, isNull(failure))),
    ...(failed.length === 0
      ? []
      : [
          database
            .update(routes)
            .set({
              status: 'error',
              edgeConfig: sql`json_set(${routes.edgeConfig}, '$.error', ${failure})`,
              updatedAt: now,
            })
            .where(and(live, isNotNull(failure))),
        ]),
    database.delete(routes).where(removed),
    database
      .delete(nodeEdgeChanges)
      .where(and(eq(nodeEdgeChanges.nodeId, nodeId), lte(nodeEdgeChanges.version, version))),
    database
      .update(nodeEdgeVersions)
      .set({
        applied: sql`max(${nodeEdgeVersions.applied}, ${version})`,
        state: sql`case when ${nodeEdgeVersions.desired} <= ${version} then 'applied' else ${nodeEdgeVersions.state} end`,
        lastError: sql`case when ${nodeEdgeVersions.desired} <= ${version} then null else ${nodeEdgeVersions.lastError} end`,
        failure: sql`case when ${nodeEdgeVersions.desired} <= ${version} then null else ${nodeEdgeVersions.failure} end`,
        updatedAt: now,
      })
      .where(eq(nodeEdgeVersions.nodeId, nodeId)),
  ])
}

/** Why a version was not taken: the agent answered and refused it, or no usable answer came in time. */
export type EdgeFailure = NonNullable<(typeof nodeEdgeVersions.$inferSelect)['failure']>

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
  failure: EdgeFailure,
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
          // The versions after the applied one: what it costs is what changed since, not the node's routes.
          gt(
            routes.configVersion,
            sql`(select ${nodeEdgeVersions.applied} from ${nodeEdgeVersions} where ${nodeEdgeVersions.nodeId} = ${nodeId})`,
          ),
          lte(routes.configVersion, version),
          inArray(routes.status, ['pending', 'error', 'removed']),
          stillNewest,
        ),
      ),
    database
      .update(nodeEdgeVersions)
      .set({ state: 'failed', lastError: reason, failure, updatedAt: now })
      .where(and(eq(nodeEdgeVersions.nodeId, nodeId), eq(nodeEdgeVersions.desired, version))),
  ])
}

/**
 * An attempt at `version` failed and the job tries again: while it is the newest version and still pending, the
 * node's lastError says why (so a wait on the node can name the agent's actual error before the chain ends).
 */
export async function recordAttemptFailed(
  database: Db,
  nodeId: string,
  version: number,
  reason: string,
): Promise<void> {
  await database
    .update(nodeEdgeVersions)
    .set({ lastError: reason, updatedAt: new Date() })
    .where(
      and(
        eq(nodeEdgeVersions.nodeId, nodeId),
        eq(nodeEdgeVersions.desired, version),
        eq(nodeEdgeVersions.state, 'pending'),
      ),
    )
}

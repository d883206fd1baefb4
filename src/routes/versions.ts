import { eq, sql } from 'drizzle-orm'
import type { ForwardKey } from '../agent-contract/edge-changes'
import { type BatchItem, type Db, db } from '../db/client'
import { nodeEdgeChanges, nodeEdgeVersions } from '../db/schema/routes'
import type { Env } from '../env'
import type { RouteReconcileMessage } from './reconcile-job'

/**
 * What a new version changes in the node's edge state: the vhost of a hostname, the forward of a proto/port, or
 * `everything` when the change re-renders entries it cannot name (the node then gets its whole state).
 */
export type EdgeChange = { vhost: string } | { forward: ForwardKey } | 'everything'

/** The entry a route is in the edge state (a route that names none stands for everything). */
export function changeOfRoute(route: {
  kind: 'http' | 'raw'
  hostname: string | null
  listenPort: number | null
  proto: ForwardKey['proto'] | null
}): EdgeChange {
  if (route.kind === 'http' && route.hostname) return { vhost: route.hostname }
  if (route.kind === 'raw' && route.listenPort !== null && route.proto)
    return { forward: { listenPort: route.listenPort, proto: route.proto } }
  return 'everything'
}

/**
 * The writes that raise the node's desired configVersion and record what it changes; they go in the same batch
 * as the route change, so a version is never shared by two different edge states and no change goes unsent.
 */
export function bumpVersion(db: Db, nodeId: string, now: Date, change: EdgeChange): [BatchItem, BatchItem] {
  return [raise(db, nodeId, now), recordChange(db, nodeId, change)]
}

function recordChange(db: Db, nodeId: string, change: EdgeChange) {
  const entry =
    change === 'everything'
      ? { kind: 'everything' as const }
      : 'vhost' in change
        ? { kind: 'vhost' as const, hostname: change.vhost }
        : { kind: 'forward' as const, ...change.forward }
  return db.insert(nodeEdgeChanges).values({ nodeId, version: desiredVersion(nodeId), ...entry })
}

function raise(db: Db, nodeId: string, now: Date) {
  return db
    .insert(nodeEdgeVersions)
    .values({ nodeId, desired: 1, applied: 0, state: 'pending', lastError: null, updatedAt: now })
    .onConflictDoUpdate({
      target: nodeEdgeVersions.nodeId,
      set: {
        desired: sql`${nodeEdgeVersions.desired} + 1`,
        state: 'pending',
        lastError: null,
        failure: null,
        updatedAt: now,
      },
    })
}

/** The node's desired version as the batch sees it, right after its `bumpVersion`. */
export function desiredVersion(nodeId: string) {
  return sql<number>`(select ${nodeEdgeVersions.desired} from ${nodeEdgeVersions} where ${nodeEdgeVersions.nodeId} = ${nodeId})`
}

/**
 * After the commit that changed a node's routes: queues the reconcile of the node's newest version (a job for an
 * older one does nothing when it runs) and answers that version.
 */
export async function enqueueReconcile(env: Env, nodeId: string): Promise<number> {
  const [row] = await reachedVersion(db(env.DB), nodeId)
  return queueReconcile(env, nodeId, row?.desired ?? 0)
}

/**
 * The read of the node's desired version, placed in the batch after its `bumpVersion`: what that batch reached,
 * for `queueReconcile` once it committed, without a read of its own.
 */
export function reachedVersion(db: Db, nodeId: string) {
  return db
    .select({ desired: nodeEdgeVersions.desired })
    .from(nodeEdgeVersions)
    .where(eq(nodeEdgeVersions.nodeId, nodeId))
}

/** The version a `reachedVersion` read answered, from the results of its batch. */
export function versionIn(results: readonly unknown[], index: number): number {
  return (results[index] as { desired: number }[] | undefined)?.[0]?.desired ?? 0
}

/** Queues the reconcile of the node's version `version`, read in the batch that reached it. */
export async function queueReconcile(env: Env, nodeId: string, version: number): Promise<number> {
  const message: RouteReconcileMessage = { type: 'route.reconcile', nodeId, version }
  await env.JOBS.sendBatch([{ body: message }])
  return version
}

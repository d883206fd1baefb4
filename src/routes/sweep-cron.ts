import { and, eq, lt } from 'drizzle-orm'
import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { nodeEdgeVersions } from '../db/schema/routes'
import type { RouteReconcileMessage } from './reconcile-job'

// A reconcile chain ends within about 6 minutes (five deliveries over about 3 minutes, each bounded by the apply
// timeout), so a node still pending half an hour after its last change has no job left: a lost enqueue or a
// dead-lettered message. A failing attempt touches the node's row, so a chain still retrying is never taken for
// a lost one.
export const LOST_RECONCILE_AFTER_MS = 30 * 60 * 1000

/** Queues the newest version again for every node whose reconcile chain ended without an outcome. */
export const routeSweepTask: CronTask = {
  name: 'route reconcile sweep',
  schedule: '*/10 * * * *',
  async run(env, scheduledTime) {
    const database = db(env.DB)
    const lost = await database
      .select({ nodeId: nodeEdgeVersions.nodeId, desired: nodeEdgeVersions.desired })
      .from(nodeEdgeVersions)
      .where(
        and(
          eq(nodeEdgeVersions.state, 'pending'),
          lt(nodeEdgeVersions.updatedAt, new Date(scheduledTime - LOST_RECONCILE_AFTER_MS)),
        ),
      )
    for (const node of lost) {
      // Touched so the next sweep waits for this chain instead of starting another beside it.
      await database
        .update(nodeEdgeVersions)
        .set({ updatedAt: new Date(scheduledTime) })
        .where(and(eq(nodeEdgeVersions.nodeId, node.nodeId), eq(nodeEdgeVersions.desired, node.desired)))
      const message: RouteReconcileMessage = {
        type: 'route.reconcile',
        nodeId: node.nodeId,
        version: node.desired,
      }
      await env.JOBS.sendBatch([{ body: message }])
    }
  },
}

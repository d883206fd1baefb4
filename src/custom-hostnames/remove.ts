import { and, eq } from 'drizzle-orm'
import { forgetObservations } from '../agent-callbacks/observations'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { enqueueReconcile } from '../routes/http-route'
import type { ProcedureContext } from '../rpc/define'
import { enqueueCustomHostnameJob } from './jobs'
import { unrouteHostname } from './route'
import { type CustomHostnameRecord, changedMeanwhile, unchanged } from './rows'

/**
 * Removes a row: one that never had a record written goes at once with its claim; one with records the panel
 * wrote turns removing and a job deletes exactly those. Certificates are never touched.
 */
export async function removeCustomHostname(
  ctx: ProcedureContext,
  row: CustomHostnameRecord,
): Promise<{ state: 'removed' | 'removing' }> {
  const audit = { targetId: row.id, detail: { hostname: row.hostname, siteId: row.siteId } }
  if (row.state === 'removing') {
    await ctx.commit([], audit)
    return { state: 'removing' }
  }
  // The node stops serving the hostname at once; the records (if the panel wrote any) follow through the job.
  const route = await unrouteHostname(ctx.db, row.hostname)
  const guarded = [failUnless(ctx.db, unchanged(row)), ...(route?.writes ?? [])]
  // A pending row may be mid-write: its job could still land records, so it goes through the delete job too.
  if (row.written.length === 0 && row.state !== 'pending') {
    await commitGuarded(
      ctx.commit(
        [
          ...guarded,
          ctx.db.delete(customHostnames).where(eq(customHostnames.id, row.id)),
          ctx.db
            .delete(hostnameClaims)
            .where(and(eq(hostnameClaims.hostname, row.hostname), eq(hostnameClaims.ownerId, row.id))),
          forgetObservations(ctx.db, row.id),
        ],
        { ...audit, detail: { ...audit.detail, state: 'removed' } },
      ),
      () => changedMeanwhile(row.hostname),
    )
    if (route) await enqueueReconcile(ctx.env, route.nodeId)
    return { state: 'removed' }
  }
  const generation = row.generation + 1
  await commitGuarded(
    ctx.commit(
      [
        ...guarded,
        ctx.db
          .update(customHostnames)
          .set({ state: 'removing', generation, attempts: 0, updatedAt: new Date() })
          .where(eq(customHostnames.id, row.id)),
      ],
      { ...audit, detail: { ...audit.detail, state: 'removing' } },
    ),
    () => changedMeanwhile(row.hostname),
  )
  if (route) await enqueueReconcile(ctx.env, route.nodeId)
  await enqueueCustomHostnameJob(ctx.env, { type: 'custom-hostname.remove', id: row.id, generation })
  return { state: 'removing' }
}

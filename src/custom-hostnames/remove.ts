import { and, eq, sql } from 'drizzle-orm'
import { forgetAttempts } from '../agent-callbacks/attempts'
import { forgetObservations } from '../agent-callbacks/observations'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { customHostnameRecords, customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { enqueueReconcile } from '../routes/http-route'
import type { ProcedureContext } from '../rpc/define'
import { enqueueCustomHostnameJob } from './jobs'
import { unrouteHostname } from './route'
import { type CustomHostnameRecord, changedMeanwhile, unchanged } from './rows'

const nothingWritten = (row: CustomHostnameRecord) =>
  sql`not exists (select 1 from ${customHostnameRecords} where ${customHostnameRecords.ownerId} = ${row.id})`

/** What a removal needs of its caller: a procedure's context, or the stale sweep's. */
export type RemoveContext = Pick<ProcedureContext, 'env' | 'db' | 'commit'>

/**
 * Removes a row: an instructions row the panel never wrote a record for goes at once with its claim; a hosted or
 * connected row (or one holding records the panel wrote) turns removing and a job deletes exactly those records,
 * whenever they were written. Certificates are never touched.
 */
export async function removeCustomHostname(
  ctx: RemoveContext,
  row: CustomHostnameRecord,
): Promise<{ state: 'removed' | 'removing' }> {
  const audit = { targetId: row.id, detail: { hostname: row.hostname, siteId: row.siteId } }
  if (row.state === 'removing' && !row.afterRemoval) {
    await ctx.commit([], audit)
    return { state: 'removing' }
  }
  // The node stops serving the hostname at once; the records (if the panel wrote any) follow through the job.
  const route = await unrouteHostname(ctx.db, row.hostname)
  const guarded = [failUnless(ctx.db, unchanged(row)), ...(route?.writes ?? [])]
  if (row.state === 'removing') {
    // A register came during the removal: the removal goes on as it was, and the row goes with it.
    await commitGuarded(
      ctx.commit(
        [
          ...guarded,
          ctx.db.update(customHostnames).set({ afterRemoval: null }).where(eq(customHostnames.id, row.id)),
        ],
        audit,
      ),
      () => changedMeanwhile(row.hostname),
    )
    if (route) await enqueueReconcile(ctx.env, route.nodeId)
    return { state: 'removing' }
  }
  const [written] = await ctx.db
    .select({ id: customHostnameRecords.id })
    .from(customHostnameRecords)
    .where(eq(customHostnameRecords.ownerId, row.id))
    .limit(1)
  if (!row.writerKind && !written) {
    await commitGuarded(
      ctx.commit(
        [
          ...guarded,
          failUnless(ctx.db, nothingWritten(row)),
          ctx.db.delete(customHostnames).where(eq(customHostnames.id, row.id)),
          ctx.db
            .delete(hostnameClaims)
            .where(and(eq(hostnameClaims.hostname, row.hostname), eq(hostnameClaims.ownerId, row.id))),
          forgetObservations(ctx.db, row.id),
          forgetAttempts(ctx.db, row.id),
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
  await enqueueCustomHostnameJob(ctx.env, {
    type: 'custom-hostname.remove',
    id: row.id,
    generation,
    recheck: row.state === 'removal-manual',
  })
  return { state: 'removing' }
}

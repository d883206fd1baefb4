import { z } from '@hono/zod-openapi'
import { and, eq, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { failedJobs, JOB_STATES, type JobState } from '../db/schema/jobs'
import {
  afterCursor,
  type ListOrder,
  logPageInput,
  NextCursorSchema,
  orderTerms,
  pageOf,
} from '../lib/paging'
import { IdInputSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { AppError, conflict, notFound } from '../rpc/errors'
import type { JobMessage, QueueMessage } from './messages'
import { reviveWrites } from './revive'
import { JOB_KINDS, type JobRecord, JobRowSchema, toJobRow } from './schemas'

/** Newest last attempt first; the id breaks ties. A row retried meanwhile moves to the front. */
const RECENT_FIRST: ListOrder = {
  keys: [sql`${failedJobs.lastAttemptAt}`, sql`${failedJobs.id}`],
  direction: 'desc',
}

const NOT_RETRIABLE: Record<Exclude<JobState, 'dead'>, string> = {
  retrying: 'the queue is still retrying this job; it can be sent again once it is dead',
  retried: 'this job was already sent again; it can be sent again if it fails again',
  succeeded: 'this job succeeded; there is nothing to retry',
}

async function findJob(db: Parameters<typeof reviveWrites>[0], id: string): Promise<JobRecord> {
  const [row] = await db.select().from(failedJobs).where(eq(failedJobs.id, id))
  if (!row) throw notFound(`job ${id}`)
  return row
}

export const jobsProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'settings:view',
    summary:
      'Queue jobs that failed: retrying, dead (out of attempts or dead-lettered), retried, or succeeded after ' +
      "failing; newest last attempt first. Pass nextCursor (the last job's id) back as cursor for the next page",
    input: z.strictObject({
      state: z.enum(JOB_STATES).optional(),
      kind: z.enum(JOB_KINDS).optional(),
      ...logPageInput,
    }),
    output: z.object({ jobs: z.array(JobRowSchema), nextCursor: NextCursorSchema }),
    async handler(input, ctx) {
      const scope = and(
        input.state ? eq(failedJobs.state, input.state) : undefined,
        input.kind ? eq(failedJobs.kind, input.kind) : undefined,
      )
      const list = { table: failedJobs, id: failedJobs.id, order: RECENT_FIRST, scope }
      const rows = await ctx.db
        .select()
        .from(failedJobs)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(RECENT_FIRST))
        .limit(input.limit + 1)
      const page = pageOf(rows, input.limit, (row) => row.id)
      return { jobs: page.items.map(toJobRow), nextCursor: page.nextCursor }
    },
  }),
  retry: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'job.retry',
    summary:
      'Send a dead job again right away, as it was first sent (a webhook delivery gets a fresh budget of ' +
      'attempts); the job shows as retried until it succeeds or fails again',
    input: IdInputSchema,
    output: JobRowSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const row = await findJob(ctx.db, input.id)
      if (row.state !== 'dead') throw conflict(NOT_RETRIABLE[row.state])
      const job = row.body as unknown as JobMessage
      const revive = await reviveWrites(ctx.db, job, new Date())
      const asRead = and(eq(failedJobs.id, row.id), eq(failedJobs.state, 'dead'))
      await commitGuarded(
        ctx.commit(
          [
            ctx.db
              .update(failedJobs)
              .set({ state: 'retried', retries: sql`${failedJobs.retries} + 1` })
              .where(asRead),
            failUnless(ctx.db, sql`changes() = 1`),
            ...revive,
          ],
          { targetId: row.id, detail: { kind: row.kind, target: row.target } },
        ),
        async () =>
          conflict(NOT_RETRIABLE[(await findJob(ctx.db, row.id)).state as Exclude<JobState, 'dead'>]),
      )
      const message: QueueMessage = { type: 'jobs.retried', jobId: row.id, job }
      try {
        await ctx.env.JOBS.sendBatch([{ body: message }])
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        await ctx.db
          .update(failedJobs)
          .set({ state: 'dead', lastError: `the queue refused the retry: ${reason}` })
          .where(and(eq(failedJobs.id, row.id), eq(failedJobs.state, 'retried')))
        throw new AppError('upstream_failed', `the queue refused the job (${reason}); it is still dead`)
      }
      return toJobRow(await findJob(ctx.db, row.id))
    },
  }),
}

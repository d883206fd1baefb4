import { z } from '@hono/zod-openapi'
import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { failedJobs, JOB_STATES, type JobState } from '../db/schema/jobs'
import { IdInputSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { AppError, conflict, notFound } from '../rpc/errors'
import type { JobMessage, QueueMessage } from './messages'
import { reviveWrites } from './revive'
import { JOB_KINDS, type JobRecord, JobRowSchema, toJobRow } from './schemas'

const CURSOR = /^(\d{1,15})~(.{1,200})$/

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
      'failing; newest last attempt first. Pass nextCursor back as cursor for the next page',
    input: z.strictObject({
      state: z.enum(JOB_STATES).optional(),
      kind: z.enum(JOB_KINDS).optional(),
      limit: z.number().int().min(1).max(500).default(100),
      cursor: z.string().max(220).regex(CURSOR, 'must be a nextCursor from an earlier page').optional(),
    }),
    output: z.object({ jobs: z.array(JobRowSchema), nextCursor: z.string().nullable() }),
    async handler(input, ctx) {
      const [, at, id] = input.cursor?.match(CURSOR) ?? []
      const after =
        at !== undefined && id !== undefined
          ? or(
              lt(failedJobs.lastAttemptAt, new Date(Number(at))),
              and(eq(failedJobs.lastAttemptAt, new Date(Number(at))), lt(failedJobs.id, id)),
            )
          : undefined
      const rows = await ctx.db
        .select()
        .from(failedJobs)
        .where(
          and(
            input.state ? eq(failedJobs.state, input.state) : undefined,
            input.kind ? eq(failedJobs.kind, input.kind) : undefined,
            after,
          ),
        )
        .orderBy(desc(failedJobs.lastAttemptAt), desc(failedJobs.id))
        .limit(input.limit + 1)
      const page = rows.slice(0, input.limit)
      const last = page[page.length - 1]
      return {
        jobs: page.map(toJobRow),
        nextCursor: rows.length > input.limit && last ? `${last.lastAttemptAt.getTime()}~${last.id}` : null,
      }
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

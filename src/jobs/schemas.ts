import { z } from '@hono/zod-openapi'
import { type failedJobs, JOB_STATES } from '../db/schema/jobs'
import { jobHandlers } from './handlers'
import type { JobMessage } from './messages'

export const JOB_KINDS = Object.keys(jobHandlers) as [JobMessage['type'], ...JobMessage['type'][]]

export const JobRowSchema = z
  .object({
    id: z.string(),
    kind: z.enum(JOB_KINDS),
    target: z.string().openapi({ description: 'What the job acts on, in words' }),
    targetKind: z.enum([
      'webhook-delivery',
      'zone-box',
      'custom-hostname',
      'domain',
      'node',
      'probe',
      'notification-delivery',
      'probe-scan',
    ]),
    targetId: z.string().openapi({ description: 'A zone-box target is `<zoneId>:<nodeId>`' }),
    state: z.enum(JOB_STATES).openapi({
      description:
        'retrying: an attempt failed and the queue tries again; dead: out of attempts (or dead-lettered, or it ' +
        'gave up); retried: sent again by jobs.retry, not finished yet; succeeded: a later attempt, a retry or ' +
        'a fresh run of the same work succeeded',
    }),
    attempts: z.number().int().openapi({ description: 'Attempts of the current run' }),
    retries: z.number().int().openapi({ description: 'How often jobs.retry sent it again' }),
    lastError: z.string().nullable().openapi({ description: 'The last failure, in the counterpart’s words' }),
    firstAttemptAt: z.iso.datetime(),
    lastAttemptAt: z.iso.datetime(),
    deadLetteredAt: z.iso.datetime().nullable(),
  })
  .openapi('Job')
export type JobRow = z.infer<typeof JobRowSchema>

export type JobRecord = typeof failedJobs.$inferSelect

export function toJobRow(row: JobRecord): JobRow {
  return {
    id: row.id,
    kind: row.kind as JobRow['kind'],
    target: row.target,
    targetKind: row.targetKind as JobRow['targetKind'],
    targetId: row.targetId,
    state: row.state,
    attempts: row.attempts,
    retries: row.retries,
    lastError: row.lastError || null,
    firstAttemptAt: row.firstAttemptAt.toISOString(),
    lastAttemptAt: row.lastAttemptAt.toISOString(),
    deadLetteredAt: row.deadLetteredAt?.toISOString() ?? null,
  }
}

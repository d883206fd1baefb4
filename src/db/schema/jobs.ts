import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * - `retrying`: an attempt failed and the queue still has attempts left.
 * - `dead`: the attempts are spent (or the message reached the dead-letter queue, or the work gave up by itself).
 * - `retried`: an operator sent it again; the new run has not finished yet.
 * - `succeeded`: a later attempt, a manual retry or a fresh run of the same work succeeded.
 */
export const JOB_STATES = ['retrying', 'dead', 'retried', 'succeeded'] as const
export type JobState = (typeof JOB_STATES)[number]

/** Queue jobs that failed: one row per run of a message (its first delivery's message id, or a manual retry's). */
export const failedJobs = sqliteTable(
  'failed_jobs',
  {
    id: text('id').primaryKey(),
    /** The message's `type`. */
    kind: text('kind').notNull(),
    /** The message body, sent again as it is by a retry. */
    body: text('body', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** What the job acts on, in words (a hostname, a zone on a box, a node's name). */
    target: text('target').notNull(),
    targetKind: text('target_kind').notNull(),
    targetId: text('target_id').notNull(),
    state: text('state', { enum: JOB_STATES }).notNull(),
    /** Attempts of the current run. */
    attempts: integer('attempts').notNull(),
    /** How often an operator sent it again. */
    retries: integer('retries').notNull(),
    lastError: text('last_error'),
    firstAttemptAt: integer('first_attempt_at', { mode: 'timestamp_ms' }).notNull(),
    lastAttemptAt: integer('last_attempt_at', { mode: 'timestamp_ms' }).notNull(),
    /** When the message reached the dead-letter queue; null when it did not (or not yet). */
    deadLetteredAt: integer('dead_lettered_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('failed_jobs_recent_idx').on(t.lastAttemptAt, t.id),
    index('failed_jobs_state_idx').on(t.state, t.lastAttemptAt, t.id),
    index('failed_jobs_kind_idx').on(t.kind, t.lastAttemptAt, t.id),
    index('failed_jobs_target_idx').on(t.kind, t.targetId),
  ],
)

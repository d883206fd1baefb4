import { forgetReplicaCopies } from '../db/replica-copy'
import type { Env } from '../env'
import { backoffSeconds } from '../lib/backoff'
import {
  type FailedAttempt,
  QUEUE_MAX_ATTEMPTS,
  recordDeadJob,
  recordFailure,
  recordSuccess,
  runKey,
} from './failed-jobs'
import { jobHandlers } from './handlers'
import type { JobMessage, QueueMessage } from './messages'
import type { JobHandler, JobOutcome } from './outcome'

/** The queue the JOBS consumer moves a message to once its attempts are spent (wrangler.toml). */
export const DEAD_LETTER_QUEUE = 'panel-jobs-dlq'

/** The job a message carries, and the run it belongs to: a manual retry continues the failed-job row it re-sent. */
function unwrap(message: Message<QueueMessage>): { key: string; job: JobMessage; resent: boolean } {
  const body = message.body
  if (body.type === 'jobs.retried') return { key: body.jobId, job: body.job, resent: true }
  return { key: runKey(body, message.id), job: body, resent: false }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Records what a run's attempt did on the jobs list; a recording failure is logged, the job's outcome stands. */
async function record(what: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write()
  } catch (error) {
    console.error(`could not record the ${what} on the jobs list`, error)
  }
}

async function runOne(message: Message<QueueMessage>, env: Env): Promise<void> {
  const { key, job, resent } = unwrap(message)
  const type = (job as { type?: unknown }).type
  const handler = (jobHandlers as Partial<Record<string, JobHandler<JobMessage>>>)[String(type)]
  if (!handler) {
    console.error(`no handler for job type ${String(type)}; dropping it`)
    message.ack()
    return
  }
  let outcome: JobOutcome
  try {
    outcome = await handler(job, env, message.attempts)
  } catch (error) {
    console.error(`job ${String(type)} failed on attempt ${message.attempts}`, error)
    outcome = { kind: 'retry', delaySeconds: backoffSeconds(message.attempts), error: errorText(error) }
  }
  const at = new Date()
  if (outcome.kind === 'done') {
    message.ack()
    // Only a run that retried, was re-sent, or redoes work a sweep found lost can have a row to settle.
    if (message.attempts > 1 || resent || key !== message.id)
      await record('success', () => recordSuccess(env, key, job, at))
    return
  }
  const attempt: FailedAttempt = {
    key,
    message: job,
    attempts: message.attempts,
    error: outcome.error ?? '',
    at,
  }
  if (outcome.kind === 'failed') {
    message.ack()
    const attempts = outcome.attempts ?? message.attempts
    await record('dead job', () => recordDeadJob(env, { ...attempt, attempts, deadLettered: false }))
    return
  }
  message.retry({ delaySeconds: outcome.delaySeconds })
  if (message.attempts >= QUEUE_MAX_ATTEMPTS) {
    // This retry moves the message to the dead-letter queue.
    const error = outcome.error ?? `still not done after ${message.attempts} attempts`
    await record('dead job', () => recordDeadJob(env, { ...attempt, error, deadLettered: false }))
  } else if (outcome.error !== undefined) {
    await record('failure', () => recordFailure(env, attempt))
  }
}

/**
 * Records each dead letter on the jobs list, keyed by its message id (the dead-letter queue keeps it), so a
 * redelivered dead letter changes nothing. A failed recording retries the dead letter.
 */
async function recordDeadLetter(message: Message<QueueMessage>, env: Env): Promise<void> {
  const { key, job } = unwrap(message)
  try {
    await recordDeadJob(env, {
      key,
      message: job,
      attempts: QUEUE_MAX_ATTEMPTS,
      error: 'reached the dead-letter queue before any failure was recorded',
      at: new Date(),
      deadLettered: true,
    })
    message.ack()
  } catch (error) {
    console.error('could not record a dead letter on the jobs list', error)
    message.retry()
  }
}

/**
 * Runs each message's handler. A thrown error (or a retry outcome carrying an error) is a failed attempt: it
 * retries with backoff and shows on the jobs list; after the consumer's max_retries the Queue moves the message
 * to the dead-letter queue, whose consumer (this same function) records it as dead. A job that gives up by
 * itself ends its message and is recorded dead at once.
 */
export async function consumeJobs(batch: MessageBatch<QueueMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    if (batch.queue === DEAD_LETTER_QUEUE) await recordDeadLetter(message, env)
    else await runOne(message, env)
    // A job's writes bypass procedure commits: this isolate's copies of hot reads must not outlive them.
    forgetReplicaCopies()
  }
}

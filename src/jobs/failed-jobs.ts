import { and, eq, inArray, ne } from 'drizzle-orm'
import { db } from '../db/client'
import { failedJobs, type JobState } from '../db/schema/jobs'
import type { Env } from '../env'
import { clearOperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import type { JobMessage } from './messages'
import { describeTarget, targetOf } from './targets'

/** The first delivery plus the consumer's max_retries (17 in wrangler.toml): the attempt after which a job is dead. */
export const QUEUE_MAX_ATTEMPTS = 18

/**
 * Work that a sweep queues again as a fresh message when its chain was lost: its rows are keyed by what it acts
 * on (one row per webhook delivery, one per zone on a box, one per node's edge state), so every chain of the
 * same work lands on one row, and the latest chain's message is the one jobs.retry sends.
 */
const KEYED_BY_TARGET: ReadonlySet<JobMessage['type']> = new Set([
  'changelog.webhook-delivery',
  'dns.zone-sync',
  'route.reconcile',
])

/** The row a run of `message` lands on: its work's own key, or the id of the message that started the run. */
export function runKey(message: JobMessage, messageId: string): string {
  return KEYED_BY_TARGET.has(message.type) ? `${message.type}:${targetOf(message).targetId}` : messageId
}

/** One failed attempt of a run (`key` from runKey, or the row a manual retry re-sent). */
export interface FailedAttempt {
  key: string
  message: JobMessage
  attempts: number
  error: string
  at: Date
}

async function newRow(env: Env, attempt: FailedAttempt, state: JobState) {
  const { targetKind, targetId } = targetOf(attempt.message)
  return {
    id: attempt.key,
    kind: attempt.message.type,
    body: attempt.message as unknown as Record<string, unknown>,
    target: await describeTarget(db(env.DB), attempt.message),
    targetKind,
    targetId,
    state,
    attempts: attempt.attempts,
    retries: 0,
    lastError: attempt.error,
    firstAttemptAt: attempt.at,
    lastAttemptAt: attempt.at,
    deadLetteredAt: null,
  }
}

/** Records a failed attempt the queue will retry, so the run shows (again) as retrying. */
export async function recordFailure(env: Env, attempt: FailedAttempt): Promise<void> {
  await db(env.DB)
    .insert(failedJobs)
    .values(await newRow(env, attempt, 'retrying'))
    .onConflictDoUpdate({
      target: failedJobs.id,
      set: {
        state: 'retrying',
        body: attempt.message as unknown as Record<string, unknown>,
        attempts: attempt.attempts,
        lastError: attempt.error,
        lastAttemptAt: attempt.at,
      },
    })
}

/**
 * Records a run whose attempts are spent, or that gave up (`deadLettered` when the message reached the
 * dead-letter queue). Answers whether the run just turned dead: a dead letter of a run already recorded dead, or
 * one delivered twice, changes nothing but the dead-letter time.
 */
export async function recordDeadJob(
  env: Env,
  attempt: FailedAttempt & { deadLettered: boolean },
): Promise<boolean> {
  const deadLetteredAt = attempt.deadLettered ? attempt.at : null
  const row = await newRow(env, attempt, 'dead')
  const turned = await db(env.DB)
    .insert(failedJobs)
    .values({ ...row, deadLetteredAt })
    .onConflictDoUpdate({
      target: failedJobs.id,
      // A dead letter knows neither the attempts nor the last error (the row keeps what the consumer saw), and
      // only closes a run still open: it may arrive after a later run of the same work succeeded.
      ...(attempt.deadLettered
        ? {
            set: { state: 'dead', lastAttemptAt: attempt.at, deadLetteredAt },
            setWhere: inArray(failedJobs.state, ['retrying', 'retried']),
          }
        : {
            set: {
              state: 'dead',
              body: row.body,
              attempts: attempt.attempts,
              lastError: attempt.error,
              lastAttemptAt: attempt.at,
            },
            setWhere: ne(failedJobs.state, 'dead'),
          }),
    })
    .returning({ id: failedJobs.id })
  if (attempt.deadLettered && turned.length === 0) {
    await db(env.DB)
      .update(failedJobs)
      .set({ deadLetteredAt })
      .where(and(eq(failedJobs.id, attempt.key), eq(failedJobs.state, 'dead')))
  }
  // A notification delivery that died is already in the delivery log; announcing it would queue another
  // delivery to the same failing recipient, and so on.
  if (turned.length > 0 && attempt.message.type !== 'notification.deliver') {
    await raiseOperationalEvent(env, {
      kind: 'job.dead-lettered',
      key: deadJobEventKey(attempt.key),
      subject: `Job ${row.kind} for ${row.target} is out of attempts`,
      detail: `${attempt.deadLettered ? 'It reached the dead-letter queue. ' : ''}Last error: ${
        row.lastError ?? 'none recorded'
      }. Retry it from the Jobs page (jobs.retry) once the cause is fixed.`,
      link: '/jobs?state=dead',
    })
  }
  return turned.length > 0
}

const deadJobEventKey = (id: string) => `job:${id}`

/**
 * A run that had failed succeeded after all. Work keyed by its target settles a dead row too: a fresh run of it
 * (queued by its sweep) did what the dead one could not.
 */
export async function recordSuccess(env: Env, key: string, message: JobMessage, at: Date): Promise<void> {
  const settled: JobState[] = KEYED_BY_TARGET.has(message.type)
    ? ['retrying', 'retried', 'dead']
    : ['retrying', 'retried']
  const settledRows = await db(env.DB)
    .update(failedJobs)
    .set({ state: 'succeeded', lastAttemptAt: at })
    .where(and(eq(failedJobs.id, key), inArray(failedJobs.state, settled)))
    .returning({ id: failedJobs.id })
  if (settledRows.length > 0) await clearOperationalEvent(env, deadJobEventKey(key))
}

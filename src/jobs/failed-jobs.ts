import { and, eq, inArray, isNull } from 'drizzle-orm'
import { db } from '../db/client'
import { failedJobs, type JobState } from '../db/schema/jobs'
import type { Env } from '../env'
import type { JobMessage } from './messages'
import { describeTarget, targetOf } from './targets'

/** The first delivery plus the consumer's max_retries (17 in wrangler.toml): the attempt after which a job is dead. */
export const QUEUE_MAX_ATTEMPTS = 18

/** One failed attempt of a run: `key` names the run (its first message id, or the row a manual retry re-sent). */
export interface FailedAttempt {
  key: string
  message: JobMessage
  attempts: number
  error: string
  at: Date
}

/** A run still in progress: a later failure or success of it updates the row. */
const OPEN: JobState[] = ['retrying', 'retried']

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

/** Records a failed attempt of a run the queue still retries, so the run shows while it retries. */
export async function recordFailure(env: Env, attempt: FailedAttempt): Promise<void> {
  await db(env.DB)
    .insert(failedJobs)
    .values(await newRow(env, attempt, 'retrying'))
    .onConflictDoUpdate({
      target: failedJobs.id,
      set: {
        state: 'retrying',
        attempts: attempt.attempts,
        lastError: attempt.error,
        lastAttemptAt: attempt.at,
      },
      setWhere: inArray(failedJobs.state, OPEN),
    })
}

/**
 * Records a run whose attempts are spent (`deadLettered` when the message reached the dead-letter queue).
 * Answers whether the run just turned dead: a redelivered dead letter, or the dead letter of a run the consumer
 * already recorded as dead, changes nothing but the dead-letter time.
 */
export async function recordDeadJob(
  env: Env,
  attempt: FailedAttempt & { deadLettered: boolean },
): Promise<boolean> {
  const database = db(env.DB)
  const deadLetteredAt = attempt.deadLettered ? attempt.at : null
  const turned = await database
    .insert(failedJobs)
    .values({ ...(await newRow(env, attempt, 'dead')), deadLetteredAt })
    .onConflictDoUpdate({
      target: failedJobs.id,
      // A dead letter knows neither the attempts nor the last error: the rows keeps what the consumer saw.
      set: attempt.deadLettered
        ? { state: 'dead', lastAttemptAt: attempt.at, deadLetteredAt }
        : { state: 'dead', attempts: attempt.attempts, lastError: attempt.error, lastAttemptAt: attempt.at },
      setWhere: inArray(failedJobs.state, OPEN),
    })
    .returning({ id: failedJobs.id })
  if (attempt.deadLettered && turned.length === 0) {
    await database
      .update(failedJobs)
      .set({ deadLetteredAt })
      .where(and(eq(failedJobs.id, attempt.key), isNull(failedJobs.deadLetteredAt)))
  }
  return turned.length > 0
}

/** A run that had failed succeeded after all. */
export async function recordSuccess(env: Env, key: string, at: Date): Promise<void> {
  await db(env.DB)
    .update(failedJobs)
    .set({ state: 'succeeded', lastAttemptAt: at })
    .where(and(eq(failedJobs.id, key), inArray(failedJobs.state, OPEN)))
}

/**
 * The work of a dead or re-sent run was done by another run (a sweep queues the same delivery or zone-sync again
 * as a fresh message): its rows succeeded too.
 */
export async function recordTargetDone(env: Env, message: JobMessage, at: Date): Promise<void> {
  const { targetId } = targetOf(message)
  await db(env.DB)
    .update(failedJobs)
    .set({ state: 'succeeded', lastAttemptAt: at })
    .where(
      and(
        eq(failedJobs.kind, message.type),
        eq(failedJobs.targetId, targetId),
        inArray(failedJobs.state, ['dead', 'retried']),
      ),
    )
}

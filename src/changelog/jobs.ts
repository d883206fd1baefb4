import { eq } from 'drizzle-orm'
import { db } from '../db/client'
import { changelogWebhookDeliveries, changelogWebhookTargets } from '../db/schema/changelog'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { openSecret } from '../lib/secrets'
import { sendSignedWebhook, type WebhookAttempt } from '../outside/webhook-sender'
import { type ChangelogDeliveryMessage, type DeliveryRecord, PENDING_DELIVERY } from './webhook-deliveries'
import type { TargetRecord } from './webhook-targets'

/** The first attempt plus the consumer's max_retries (17 in wrangler.toml); after the last, the delivery is a dead job. */
export const DELIVERY_ATTEMPTS = 18
/** The longest wait between two attempts: the Queue's maximum delay. */
export const MAX_DELAY_SECONDS = 12 * 60 * 60

async function attemptDelivery(env: Env, target: TargetRecord, body: string): Promise<WebhookAttempt> {
  try {
    return await sendSignedWebhook(target.url, body, await openSecret(env, target.secretSealed))
  } catch (error) {
    // A secret that cannot be opened (or a signing failure) is a failed attempt like any other: recorded, retried.
    const reason = error instanceof Error ? error.message : String(error)
    return { kind: 'failed', status: null, error: `could not send: ${reason}`, retryAfterSeconds: null }
  }
}

/**
 * Delivers one publish notification. 2xx is done; 410 disables the target; anything else (network error, 5xx,
 * 429, other statuses) retries with exponential backoff, never sooner than a Retry-After asks.
 */
export async function deliverChangelogWebhook(
  message: ChangelogDeliveryMessage,
  env: Env,
  attempts: number,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const [row] = await database
    .select({ delivery: changelogWebhookDeliveries, target: changelogWebhookTargets })
    .from(changelogWebhookDeliveries)
    .innerJoin(changelogWebhookTargets, eq(changelogWebhookTargets.id, changelogWebhookDeliveries.targetId))
    .where(eq(changelogWebhookDeliveries.id, message.deliveryId))
    .limit(1)
  // Queues deliver at least once: a delivery that already ended (or was removed with its target) is not sent again.
  // One that gave up stays a failure for the jobs list, whichever job chain finds it.
  if (row?.delivery.status === 'failed') {
    return { kind: 'failed', error: row.delivery.lastError ?? 'gave up', attempts: row.delivery.attempts }
  }
  if (!row || !PENDING_DELIVERY.includes(row.delivery.status)) return { kind: 'done' }
  const { delivery, target } = row
  const record = (changes: Partial<DeliveryRecord>) =>
    database
      .update(changelogWebhookDeliveries)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(changelogWebhookDeliveries.id, delivery.id))
  if (!target.enabled) {
    await record({
      status: 'skipped',
      lastError: 'the target was disabled before delivery',
      nextAttemptAt: null,
    })
    return { kind: 'done' }
  }
  // The row counts attempts across job chains (the delivery sweep starts a new chain when one was lost), and the
  // count lands before sending, so an attempt that dies before recording its result still uses up the budget.
  const attempt = Math.max(attempts, delivery.attempts + 1)
  await record({ attempts: attempt })
  const result = await attemptDelivery(env, target, delivery.body)
  const now = new Date()
  if (result.kind === 'delivered') {
    await record({
      status: 'delivered',
      lastStatusCode: result.status,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: now,
    })
    return { kind: 'done' }
  }
  if (result.kind === 'gone') {
    await database.batch([
      record({
        status: 'failed',
        lastStatusCode: 410,
        lastError: 'the target answered 410 Gone and was disabled',
        nextAttemptAt: null,
      }),
      database
        .update(changelogWebhookTargets)
        .set({ enabled: false, disabledReason: `answered 410 Gone on ${now.toISOString()}`, updatedAt: now })
        .where(eq(changelogWebhookTargets.id, target.id)),
    ])
    return { kind: 'done' }
  }
  if (attempt >= DELIVERY_ATTEMPTS) {
    await record({
      status: 'failed',
      lastStatusCode: result.status,
      lastError: `${result.error}; gave up after ${attempt} attempts (see the jobs list)`,
      nextAttemptAt: null,
    })
    return { kind: 'failed', error: result.error, attempts: attempt }
  }
  const delaySeconds = Math.min(
    MAX_DELAY_SECONDS,
    Math.max(backoffSeconds(attempt), result.retryAfterSeconds ?? 0),
  )
  await record({
    status: 'retrying',
    lastStatusCode: result.status,
    lastError: result.error,
    nextAttemptAt: new Date(now.getTime() + delaySeconds * 1000),
  })
  return { kind: 'retry', delaySeconds, error: result.error }
}

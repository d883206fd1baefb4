import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../db/client'
import { changelogWebhookDeliveries, changelogWebhookTargets } from '../db/schema/changelog'
import type { Env } from '../env'
import type { DeliveryRow, FeedRelease } from './schemas'

export type DeliveryRecord = typeof changelogWebhookDeliveries.$inferSelect

const DELIVERY_JOB = 'changelog.webhook-delivery'

/** The queue message for one delivery; the body to send lives on the delivery row. */
export interface ChangelogDeliveryMessage {
  type: typeof DELIVERY_JOB
  deliveryId: string
}

// sendBatch takes at most 100 messages, and D1 binds at most 100 parameters per statement.
const CHUNK = 50

/** One queued delivery per enabled target, each carrying the exact body every attempt will send. */
export async function plannedDeliveries(
  db: Db,
  release: { id: string; version: string },
  payload: FeedRelease,
  now: Date,
): Promise<DeliveryRecord[]> {
  const targets = await db
    .select({ id: changelogWebhookTargets.id })
    .from(changelogWebhookTargets)
    .where(eq(changelogWebhookTargets.enabled, true))
  const body = JSON.stringify({ event: 'changelog.published', release: payload })
  return targets.map((target) => ({
    id: crypto.randomUUID(),
    targetId: target.id,
    releaseId: release.id,
    version: release.version,
    body,
    status: 'queued',
    attempts: 0,
    lastError: null,
    lastStatusCode: null,
    nextAttemptAt: now,
    deliveredAt: null,
    createdAt: now,
    updatedAt: now,
  }))
}

/**
 * Enqueues one message per delivery once the publish has committed. A queue failure never fails the publish:
 * it is logged and written on the delivery rows.
 */
export async function enqueueDeliveries(
  env: Env,
  db: Db,
  deliveries: readonly DeliveryRecord[],
): Promise<void> {
  for (let i = 0; i < deliveries.length; i += CHUNK) {
    const chunk = deliveries.slice(i, i + CHUNK)
    try {
      await env.JOBS.sendBatch(chunk.map((d) => ({ body: { type: DELIVERY_JOB, deliveryId: d.id } })))
    } catch (error) {
      console.error('could not enqueue changelog webhook deliveries', error)
      try {
        await db
          .update(changelogWebhookDeliveries)
          .set({
            status: 'failed',
            lastError: `could not enqueue: ${String(error)}`,
            nextAttemptAt: null,
            updatedAt: new Date(),
          })
          .where(
            inArray(
              changelogWebhookDeliveries.id,
              chunk.map((d) => d.id),
            ),
          )
      } catch (recordError) {
        console.error('could not record the enqueue failure on the delivery rows', recordError)
      }
    }
  }
}

/** A delivery as admins see it (the body sent is left out). */
export function toDeliveryRow(delivery: DeliveryRecord): DeliveryRow {
  return {
    id: delivery.id,
    targetId: delivery.targetId,
    releaseId: delivery.releaseId,
    version: delivery.version,
    status: delivery.status,
    attempts: delivery.attempts,
    lastError: delivery.lastError,
    lastStatusCode: delivery.lastStatusCode,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
  }
}

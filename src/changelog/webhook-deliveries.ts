import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import {
  changelogWebhookDeliveries,
  changelogWebhookTargets,
  type DeliveryStatus,
} from '../db/schema/changelog'
import type { Env } from '../env'
import type { DeliveryRow, FeedRelease } from './schemas'

export type DeliveryRecord = typeof changelogWebhookDeliveries.$inferSelect

/** A delivery in one of these states still has an attempt coming. */
export const PENDING_DELIVERY: readonly DeliveryStatus[] = ['queued', 'retrying']

const DELIVERY_JOB = 'changelog.webhook-delivery'

/** The queue message for one delivery; the body to send lives on the delivery row. */
export interface ChangelogDeliveryMessage {
  type: typeof DELIVERY_JOB
  deliveryId: string
}

// sendBatch takes at most 100 messages, and D1 binds at most 100 parameters per statement.
const CHUNK = 50

/**
 * Inserts one queued delivery per target that is enabled when the statement runs, each carrying the exact body
 * every attempt will send. Reading the targets inside the batch means a target removed meanwhile simply gets
 * no delivery, instead of failing the publish on the foreign key.
 */
export function insertDeliveries(
  db: Db,
  release: { id: string; version: string },
  payload: FeedRelease,
  now: Date,
) {
  const body = JSON.stringify({ event: 'changelog.published', release: payload })
  const at = now.getTime()
  const deliveries = db
    .select({
      id: sql<string>`lower(hex(randomblob(16)))`.as('id'),
      targetId: changelogWebhookTargets.id,
      releaseId: sql<string>`${release.id}`.as('release_id'),
      version: sql<string>`${release.version}`.as('version'),
      body: sql<string>`${body}`.as('body'),
      status: sql<DeliveryStatus>`'queued'`.as('status'),
      attempts: sql<number>`0`.as('attempts'),
      lastError: sql<null>`null`.as('last_error'),
      lastStatusCode: sql<null>`null`.as('last_status_code'),
      nextAttemptAt: sql<number>`${at}`.as('next_attempt_at'),
      deliveredAt: sql<null>`null`.as('delivered_at'),
      createdAt: sql<number>`${at}`.as('created_at'),
      updatedAt: sql<number>`${at}`.as('updated_at'),
    })
    .from(changelogWebhookTargets)
    .where(eq(changelogWebhookTargets.enabled, true))
  return db.insert(changelogWebhookDeliveries).select(deliveries)
}

/** The deliveries one publish created: those of the release stamped with that publish's instant. */
export async function deliveryIdsOf(db: Db, releaseId: string, createdAt: Date): Promise<string[]> {
  const rows = await db
    .select({ id: changelogWebhookDeliveries.id })
    .from(changelogWebhookDeliveries)
    .where(
      and(
        eq(changelogWebhookDeliveries.releaseId, releaseId),
        eq(changelogWebhookDeliveries.createdAt, createdAt),
      ),
    )
  return rows.map((row) => row.id)
}

/**
 * Enqueues one message per delivery, after the write that created or revived them committed. A queue failure
 * fails nothing: the delivery stays pending with the refusal as its last error, and the delivery sweep queues
 * it again once no job chain can still be alive.
 */
export async function enqueueDeliveries(env: Env, db: Db, deliveryIds: readonly string[]): Promise<void> {
  for (let i = 0; i < deliveryIds.length; i += CHUNK) {
    const chunk = deliveryIds.slice(i, i + CHUNK)
    try {
      await env.JOBS.sendBatch(chunk.map((deliveryId) => ({ body: { type: DELIVERY_JOB, deliveryId } })))
    } catch (error) {
      console.error('could not enqueue changelog webhook deliveries; the delivery sweep will retry', error)
      const reason = error instanceof Error ? error.message : String(error)
      try {
        await db
          .update(changelogWebhookDeliveries)
          .set({
            lastError: `the queue refused it (${reason}); the delivery sweep queues it again`,
            updatedAt: new Date(),
          })
          .where(inArray(changelogWebhookDeliveries.id, chunk))
      } catch (recordError) {
        console.error('could not record the enqueue failure on the delivery rows', recordError)
      }
    }
  }
}

/** A delivery as admins see it (the body sent is left out). */
export function toDeliveryRow(delivery: Omit<DeliveryRecord, 'body'>): DeliveryRow {
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

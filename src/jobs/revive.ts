import { and, eq } from 'drizzle-orm'
import { reviveCustomHostnameWrite } from '../custom-hostnames/revive'
import type { BatchItem, Db } from '../db/client'
import { changelogWebhookDeliveries } from '../db/schema/changelog'
import { conflict } from '../rpc/errors'
import type { JobMessage } from './messages'

/**
 * The writes that let a re-sent job do its work again, committed with the retry. A changelog webhook delivery
 * that gave up is queued again with a fresh budget of attempts (its job sends nothing for a delivery that
 * ended), and so is a custom hostname's failed write; other jobs read their state afresh and need nothing.
 */
export async function reviveWrites(db: Db, message: JobMessage, now: Date): Promise<BatchItem[]> {
  if (message.type === 'custom-hostname.write') return reviveCustomHostnameWrite(db, message, now)
  if (message.type !== 'changelog.webhook-delivery') return []
  const [delivery] = await db
    .select({ status: changelogWebhookDeliveries.status })
    .from(changelogWebhookDeliveries)
    .where(eq(changelogWebhookDeliveries.id, message.deliveryId))
  if (!delivery)
    throw conflict('the webhook delivery no longer exists (its target was removed); nothing to retry')
  if (delivery.status === 'delivered') throw conflict('the webhook delivery was delivered meanwhile')
  if (delivery.status === 'skipped')
    throw conflict('the webhook delivery was skipped: its target is disabled')
  if (delivery.status !== 'failed') return []
  return [
    db
      .update(changelogWebhookDeliveries)
      .set({ status: 'queued', attempts: 0, nextAttemptAt: now, updatedAt: now })
      .where(
        and(
          eq(changelogWebhookDeliveries.id, message.deliveryId),
          eq(changelogWebhookDeliveries.status, 'failed'),
        ),
      ),
  ]
}

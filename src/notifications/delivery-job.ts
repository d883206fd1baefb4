import { eq } from 'drizzle-orm'
import { db } from '../db/client'
import { operationalDeliveries } from '../db/schema/notifications'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { findChannel, sendToChannel } from './channel-store'
import { type Attempt, sendNotificationEmail, sendNotificationWebhook, settleAttempt } from './channels'
import type { ChannelAttempt } from './channels/http'
import { type OperationalNotification, operationalChannelMessage, operationalEmail } from './message'
import { readNotificationSettings } from './settings'

/** One operational notification to one recipient, logged in `operational_deliveries`. */
export interface OperationalDeliveryMessage {
  type: 'notification.deliver'
  deliveryId: string
}

type DeliveryRecord = typeof operationalDeliveries.$inferSelect

/** The attempt to make, judged on the setting as it is at delivery, or why nothing may go out. */
async function attemptFor(env: Env, delivery: DeliveryRecord): Promise<Attempt | ChannelAttempt | string> {
  const setting = await readNotificationSettings(db(env.DB))
  if (delivery.channel === 'webhook') {
    if (setting.webhookUrl !== delivery.target)
      return 'not sent: the webhook was changed or removed before delivery'
    return sendNotificationWebhook(env, delivery.target, setting.webhookSecretSealed, delivery.payload)
  }
  const notification = JSON.parse(delivery.payload) as OperationalNotification
  if (delivery.channel === 'channel') {
    const channel = setting.channels.includes(delivery.target)
      ? await findChannel(db(env.DB), delivery.target)
      : undefined
    if (!channel) return 'not sent: the channel was removed before delivery'
    return sendToChannel(env, channel, operationalChannelMessage(notification), delivery.deliveredTo ?? [])
  }
  if (!setting.emails.includes(delivery.target)) return 'not sent: the address was removed before delivery'
  return sendNotificationEmail(env, delivery.target, operationalEmail(notification))
}

/** The recipients an email channel reached so far, kept so a retry skips them. */
const reached = (attempt: Attempt | ChannelAttempt | string) =>
  typeof attempt !== 'string' && 'deliveredTo' in attempt && attempt.deliveredTo
    ? { deliveredTo: attempt.deliveredTo }
    : {}

/**
 * `notification.deliver`: sends one logged delivery, re-reading the setting first (nothing goes to a recipient
 * removed meanwhile). A network error, 5xx or 429 (or a refused email) retries with backoff up to
 * NOTIFY_ATTEMPTS; any other answer fails at once. Every attempt is logged on the delivery's row; a delivery
 * no longer pending (a duplicate message) is left alone.
 */
export async function deliverOperationalNotification(
  message: OperationalDeliveryMessage,
  env: Env,
  attempts: number,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const [delivery] = await database
    .select()
    .from(operationalDeliveries)
    .where(eq(operationalDeliveries.id, message.deliveryId))
    .limit(1)
  if (delivery?.status !== 'pending') return { kind: 'done' }
  const attempt = await attemptFor(env, delivery)
  const record = (status: DeliveryRecord['status'], answer: string) =>
    database
      .update(operationalDeliveries)
      .set({ status, answer, attempts, lastAttemptAt: new Date(), ...reached(attempt) })
      .where(eq(operationalDeliveries.id, delivery.id))
  if (typeof attempt === 'string') {
    await record('failed', attempt)
    return { kind: 'done' }
  }
  return settleAttempt(attempt, attempts, record)
}

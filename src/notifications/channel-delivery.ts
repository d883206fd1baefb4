import { eq, sql } from 'drizzle-orm'
import { db } from '../db/client'
import { channelDeliveries } from '../db/schema/channels'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { findChannel, sendToChannel } from './channel-store'
import { settleAttempt } from './channels'
import { probeChannelMessage } from './channels/probe-message'
import type { ProbeNotification } from './probes/jobs'

type DeliveryStatus = (typeof channelDeliveries.$inferSelect)['status']

export interface ProbeChannelDelivery {
  channelId: string
  probeId: string
  /** `up->down` or `still_down`, as the probe's own delivery rows say. */
  event: string
  notification: ProbeNotification
  /** Why nothing may go out (the probe was archived, the channel detached), or null to send. */
  skip: string | null
  /** Why maintenance withheld it (logged as `withheld`, nothing sent), or null. */
  withheld?: string | null
}

/**
 * Delivers one probe notification to one channel, logging every attempt on one row of the channel's delivery
 * log (its id comes from the notification, so a duplicate queue message updates that row). A network error, 5xx
 * or 429 retries with backoff up to NOTIFY_ATTEMPTS; any other answer fails at once. A removed channel ends it.
 */
export async function deliverToChannel(
  env: Env,
  delivery: ProbeChannelDelivery,
  attempts: number,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const channel = await findChannel(database, delivery.channelId)
  if (!channel) return { kind: 'done' }
  const message = probeChannelMessage(delivery.notification)
  const now = new Date()
  const id = `${delivery.probeId}.${delivery.channelId}.${delivery.notification.event}.${delivery.notification.at}`
  const record = (status: DeliveryStatus, answer: string, deliveredTo: string[] | null = null) => {
    const row =
      status === 'withheld'
        ? { status, answer, attempts: 0, lastAttemptAt: null, deliveredTo }
        : { status, answer, attempts, lastAttemptAt: now, deliveredTo }
    return database
      .insert(channelDeliveries)
      .values({
        id,
        channelId: channel.id,
        probeId: delivery.probeId,
        event: delivery.event,
        title: message.title,
        createdAt: now,
        ...row,
      })
      .onConflictDoUpdate({
        target: channelDeliveries.id,
        set: row,
        // A delivery already settled (a duplicate message) keeps its outcome.
        setWhere: sql`${channelDeliveries.status} = 'pending'`,
      })
  }
  if (delivery.withheld) {
    await record('withheld', delivery.withheld)
    return { kind: 'done' }
  }
  if (delivery.skip) {
    await record('failed', delivery.skip)
    return { kind: 'done' }
  }
  const [earlier] = await database
    .select({ deliveredTo: channelDeliveries.deliveredTo })
    .from(channelDeliveries)
    .where(eq(channelDeliveries.id, id))
    .limit(1)
  const attempt = await sendToChannel(env, channel, message, earlier?.deliveredTo ?? [])
  return settleAttempt(attempt, attempts, (status, answer) =>
    record(status, answer, attempt.deliveredTo ?? null),
  )
}

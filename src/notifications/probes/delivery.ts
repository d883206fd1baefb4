import { and, eq } from 'drizzle-orm'
import { db } from '../../db/client'
import { type DELIVERY_STATUSES, probeDeliveries, probes } from '../../db/schema/probes'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import type { ProbeNotifyConfig } from '../../probes/config'
import { tellOperational } from '../../probes/domain-cert/operational'
import { deliverToChannel } from '../channel-delivery'
import { type Attempt, sendNotificationEmail, sendNotificationWebhook, settleAttempt } from '../channels'
import { alertEmail } from './email'
import type { ProbeNotification, ProbeNotifyMessage, WithheldBy } from './jobs'

const EMAIL_PREFIX = 'email:'
const CHANNEL_PREFIX = 'channel:'

interface ProbeAtDelivery {
  notifyConfig: ProbeNotifyConfig
  webhookSecret: string | null
  archivedAt: Date | null
}

type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** The delivery row's `event`: the announced change (`up->down`), or `still_down` for a reminder. */
function eventOf(notification: ProbeNotification): string {
  return notification.event === 'probe.still_down'
    ? 'still_down'
    : `${notification.previousState}->${notification.state}`
}

/** What the delivery log says of a notification maintenance withheld. */
export function withheldReason(withheld: WithheldBy): string {
  return `withheld: maintenance "${withheld.title}" until ${withheld.until}`
}

/** The webhook body: a probe notification's documented fields. */
function webhookBody(notification: ProbeNotification): string {
  const { event, probe, previousState, state, at, result, downSince } = notification
  return JSON.stringify({ event, probe, previousState, state, at, result, downSince })
}

/** The attempt to make, judged on the probe as it is at delivery, or why nothing may go out. */
function attemptFor(
  env: Env,
  probe: ProbeAtDelivery,
  message: ProbeNotifyMessage,
): Promise<Attempt> | string {
  if (probe.archivedAt) return 'not sent: the probe was archived before delivery'
  if (message.target === 'webhook') {
    const url = probe.notifyConfig.webhookUrl
    return url
      ? sendNotificationWebhook(env, url, probe.webhookSecret, webhookBody(message.notification))
      : 'not sent: the webhook URL was removed before delivery'
  }
  const address = message.target.slice(EMAIL_PREFIX.length)
  return probe.notifyConfig.emails.includes(address)
    ? sendNotificationEmail(env, address, alertEmail(message.notification))
    : 'not sent: the address was removed from the probe before delivery'
}

/**
 * Delivers one probe notification to one target (`probe.notify`), re-reading the probe first: nothing goes
 * out for an archived probe or a target removed meanwhile. A network error, 5xx or 429 (or a failed email send)
 * retries with backoff up to NOTIFY_ATTEMPTS; any other answer fails at once. Each attempt upserts the target's
 * delivery row; a skipped one only updates an existing row. The `operational` target hands the notification to
 * the installation's operational notifications, and a `channel:<id>` target goes to that channel; both log their
 * own deliveries. A notification maintenance withheld is only logged, as `withheld`, in the same logs (the
 * operational target in the probe's own).
 */
export async function deliverProbeNotification(
  message: ProbeNotifyMessage,
  env: Env,
  attempts: number,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const { probeId, target } = message
  const [probe] = await database
    .select({
      notifyConfig: probes.notifyConfig,
      webhookSecret: probes.webhookSecret,
      archivedAt: probes.archivedAt,
    })
    .from(probes)
    .where(eq(probes.id, probeId))
    .limit(1)
  if (!probe) return { kind: 'done' }
  const event = eventOf(message.notification)
  const withheld = message.withheld ? withheldReason(message.withheld) : null
  if (withheld !== null && !target.startsWith(CHANNEL_PREFIX)) {
    const row = {
      status: 'withheld' as const,
      event,
      attempts: 0,
      lastError: withheld,
      updatedAt: new Date(),
    }
    await database
      .insert(probeDeliveries)
      .values({ probeId, target, ...row })
      .onConflictDoUpdate({ target: [probeDeliveries.probeId, probeDeliveries.target], set: row })
    return { kind: 'done' }
  }
  if (target === 'operational') {
    if (!probe.archivedAt) await tellOperational(env, message.notification)
    return { kind: 'done' }
  }
  if (target.startsWith(CHANNEL_PREFIX)) {
    const channelId = target.slice(CHANNEL_PREFIX.length)
    const skip = probe.archivedAt
      ? 'not sent: the probe was archived before delivery'
      : (probe.notifyConfig.channels ?? []).includes(channelId)
        ? null
        : 'not sent: the channel was removed from the probe before delivery'
    return deliverToChannel(
      env,
      { channelId, probeId, event, notification: message.notification, skip, withheld },
      attempts,
    )
  }
  const pending = attemptFor(env, probe, message)
  if (typeof pending === 'string') {
    await database
      .update(probeDeliveries)
      .set({ status: 'failed', event, lastError: pending, updatedAt: new Date() })
      .where(and(eq(probeDeliveries.probeId, probeId), eq(probeDeliveries.target, target)))
    return { kind: 'done' }
  }
  const attempt = await pending
  const record = (status: DeliveryStatus, lastError: string | null) => {
    const now = new Date()
    const row = { status, event, attempts, lastError, lastAttemptAt: now, updatedAt: now }
    return database
      .insert(probeDeliveries)
      .values({ probeId, target, ...row })
      .onConflictDoUpdate({ target: [probeDeliveries.probeId, probeDeliveries.target], set: row })
  }
  // The probe's log keeps only errors: a delivered attempt clears the last one.
  return settleAttempt(attempt, attempts, (status, answer: string) =>
    record(status, status === 'delivered' ? null : answer),
  )
}

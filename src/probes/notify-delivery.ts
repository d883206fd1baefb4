import { and, eq } from 'drizzle-orm'
import { db } from '../db/client'
import { type DELIVERY_STATUSES, probeDeliveries, probes } from '../db/schema/probes'
import type { Env } from '../env'
import { type NodeAlertMessage, nodeHealthEmail } from '../fleet/health-notification'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { openSecret } from '../lib/secrets'
import { quotableText } from '../outside/counterpart-text'
import { sendSignedWebhook } from '../outside/webhook-sender'
import type { ProbeNotifyConfig } from './config'
import { alertEmail } from './notify-email'
import type { ProbeNotifyMessage } from './notify-jobs'

/** Attempts per delivery (below the queue's max_retries): backoff spreads them over about 15 minutes. */
export const NOTIFY_ATTEMPTS = 6
/** The longest a Retry-After may hold an alert back between two attempts. */
const MAX_DELAY_SECONDS = 60 * 60
const EMAIL_PREFIX = 'email:'
const WITHHELD = 'the attempt failed (its error text is withheld)'

type Attempt =
  | { kind: 'delivered' }
  | { kind: 'failed'; error: string; retryable: boolean; retryAfter: number | null }

interface ProbeAtDelivery {
  notifyConfig: ProbeNotifyConfig
  webhookSecret: string | null
  archivedAt: Date | null
}

type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

const permanent = (error: string): Attempt => ({ kind: 'failed', error, retryable: false, retryAfter: null })

type Notification = (ProbeNotifyMessage | NodeAlertMessage)['notification']

/**
 * The delivery row's `event`: the announced change (`up->down`), `still_down` for a reminder, or for a node
 * health alert `node:<previous>-><state>`.
 */
function eventOf(notification: Notification): string {
  if (notification.event === 'node.health_changed')
    return `node:${notification.previousState}->${notification.state}`
  return notification.event === 'probe.still_down'
    ? 'still_down'
    : `${notification.previousState}->${notification.state}`
}

/** The webhook body: a probe notification's documented fields, or the node health alert as it is. */
function webhookBody(notification: Notification): string {
  if (notification.event === 'node.health_changed') return JSON.stringify(notification)
  const { event, probe, previousState, state, at, result, downSince } = notification
  return JSON.stringify({ event, probe, previousState, state, at, result, downSince })
}

function emailOf(notification: Notification): { subject: string; text: string } {
  return notification.event === 'node.health_changed'
    ? nodeHealthEmail(notification)
    : alertEmail(notification)
}

async function sendWebhook(
  env: Env,
  url: string,
  sealedSecret: string | null,
  notification: Notification,
): Promise<Attempt> {
  // Probe webhooks are always signed: a receiver could not tell an unsigned alert from a forged one.
  if (!sealedSecret)
    return permanent('not sent: the probe has no webhook secret (set webhookSecret to sign its webhooks)')
  let secret: string
  try {
    secret = await openSecret(env, sealedSecret)
  } catch {
    return permanent('not sent: the webhook secret could not be opened with the configured keys')
  }
  const answer = await sendSignedWebhook(url, webhookBody(notification), secret)
  if (answer.kind === 'delivered') return answer
  if (answer.kind === 'gone') return permanent('target answered 410 Gone')
  return {
    kind: 'failed',
    error: quotableText(answer.error, [secret]) ?? WITHHELD,
    retryable: answer.status === null || answer.status >= 500 || answer.status === 429,
    retryAfter: answer.retryAfterSeconds,
  }
}

async function sendEmail(env: Env, to: string, notification: Notification): Promise<Attempt> {
  try {
    await env.ALERT_EMAIL.send({ from: env.ALERT_EMAIL_FROM, to, ...emailOf(notification) })
    return { kind: 'delivered' }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error)
    return { kind: 'failed', error: quotableText(text, []) ?? WITHHELD, retryable: true, retryAfter: null }
  }
}

/** The attempt to make, judged on the probe as it is at delivery, or why nothing may go out. */
function attemptFor(
  env: Env,
  probe: ProbeAtDelivery,
  message: ProbeNotifyMessage | NodeAlertMessage,
): Promise<Attempt> | string {
  if (probe.archivedAt) return 'not sent: the probe was archived before delivery'
  if (message.target === 'webhook') {
    const url = probe.notifyConfig.webhookUrl
    return url
      ? sendWebhook(env, url, probe.webhookSecret, message.notification)
      : 'not sent: the webhook URL was removed before delivery'
  }
  const address = message.target.slice(EMAIL_PREFIX.length)
  return probe.notifyConfig.emails.includes(address)
    ? sendEmail(env, address, message.notification)
    : 'not sent: the address was removed from the probe before delivery'
}

/**
 * Delivers one probe notification to one target (`probe.notify`), or one node health alert to a target of a
 * probe on that node (`node.alert`), re-reading the probe first: nothing goes
 * out for an archived probe or a target removed meanwhile. A network error, 5xx or 429 (or a failed email
 * send) retries with backoff up to NOTIFY_ATTEMPTS; any other answer fails at once. Each attempt upserts the
 * target's delivery row; a skipped one only updates an existing row.
 */
export async function deliverProbeNotification(
  message: ProbeNotifyMessage | NodeAlertMessage,
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
  if (attempt.kind === 'delivered') {
    await record('delivered', null)
    return { kind: 'done' }
  }
  if (attempt.retryable && attempts < NOTIFY_ATTEMPTS) {
    await record('pending', attempt.error)
    const delaySeconds = Math.max(backoffSeconds(attempts), attempt.retryAfter ?? 0)
    return { kind: 'retry', delaySeconds: Math.min(MAX_DELAY_SECONDS, delaySeconds) }
  }
  await record(
    'failed',
    attempt.retryable ? `${attempt.error}; gave up after ${attempts} attempts` : attempt.error,
  )
  return { kind: 'done' }
}

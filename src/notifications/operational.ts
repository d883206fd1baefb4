import { and, countDistinct, eq, gt, isNull, sql } from 'drizzle-orm'
import { failUnless, isGuardFailure } from '../db/batch-guard'
import { type Db, db } from '../db/client'
import { operationalDeliveries, operationalEvents } from '../db/schema/notifications'
import type { Env } from '../env'
import type { OperationalDeliveryMessage } from './delivery-job'
import { notificationOf } from './message'
import {
  decideClear,
  decideRaise,
  mayAnnounce,
  type OperationalEvent,
  type OperationalEventRecord,
  type PolicyLimits,
} from './policy'
import { hasRecipients, type NotificationSettingsRecord, readNotificationSettings } from './settings'

export type { OperationalEvent } from './policy'

const HOUR_MS = 60 * 60 * 1000
/** Tries of a raise or clear that lost a race with another one on the same key. */
const TRIES = 3
/** The most held events one minute announces. */
const HELD_PER_RUN = 50
/** The most messages one `sendBatch` takes. */
const SEND_BATCH = 100

async function limitsAt(database: Db, setting: NotificationSettingsRecord, now: Date): Promise<PolicyLimits> {
  const [sent] = await database
    .select({ count: countDistinct(operationalDeliveries.notificationId) })
    .from(operationalDeliveries)
    .where(gt(operationalDeliveries.createdAt, new Date(now.getTime() - HOUR_MS)))
  return {
    cooldownMs: setting.cooldownMinutes * 60_000,
    maxPerHour: setting.maxPerHour,
    sentLastHour: sent?.count ?? 0,
    hasRecipients: hasRecipients(setting),
  }
}

async function eventRow(database: Db, key: string): Promise<OperationalEventRecord | null> {
  const [row] = await database.select().from(operationalEvents).where(eq(operationalEvents.key, key)).limit(1)
  return row ?? null
}

function deliveryRows(
  env: Env,
  row: OperationalEventRecord,
  event: 'raised' | 'resolved',
  setting: NotificationSettingsRecord,
  now: Date,
): (typeof operationalDeliveries.$inferInsert)[] {
  const payload = JSON.stringify(notificationOf(row, event, now, env.PANEL_ORIGIN))
  const notificationId = crypto.randomUUID()
  const targets = [
    ...(setting.webhookUrl ? [{ channel: 'webhook' as const, target: setting.webhookUrl }] : []),
    ...[...new Set(setting.emails)].map((email) => ({ channel: 'email' as const, target: email })),
    ...setting.channels.map((id) => ({ channel: 'channel' as const, target: id })),
  ]
  return targets.map(({ channel, target }) => ({
    id: crypto.randomUUID(),
    notificationId,
    eventKey: row.key,
    kind: row.kind,
    event,
    channel,
    target,
    payload,
    status: 'pending',
    attempts: 0,
    answer: null,
    createdAt: now,
    lastAttemptAt: null,
  }))
}

/**
 * Writes the key's next row over the one it was decided from, with the deliveries of the notification it sends,
 * in one batch; then queues them. False when another raise or clear changed the key meanwhile.
 */
async function store(
  env: Env,
  previous: OperationalEventRecord | null,
  next: OperationalEventRecord,
  send: 'raised' | 'resolved' | null,
  setting: NotificationSettingsRecord,
  now: Date,
): Promise<boolean> {
  const database = db(env.DB)
  const deliveries = send ? deliveryRows(env, next, send, setting, now) : []
  const write = previous
    ? database
        .update(operationalEvents)
        .set(next)
        .where(and(eq(operationalEvents.key, next.key), eq(operationalEvents.version, previous.version)))
    : database.insert(operationalEvents).values(next).onConflictDoNothing()
  try {
    await database.batch([
      write,
      failUnless(database, sql`changes() = 1`),
      ...(deliveries.length > 0 ? [database.insert(operationalDeliveries).values(deliveries)] : []),
    ])
  } catch (error) {
    if (isGuardFailure(error)) return false
    throw error
  }
  const messages = deliveries.map(({ id }) => {
    const body: OperationalDeliveryMessage = { type: 'notification.deliver', deliveryId: id }
    return { body }
  })
  for (let i = 0; i < messages.length; i += SEND_BATCH)
    await env.JOBS.sendBatch(messages.slice(i, i + SEND_BATCH))
  return true
}

function unchanged(row: OperationalEventRecord | null, next: OperationalEventRecord): boolean {
  return (
    row !== null &&
    row.state === 'open' &&
    row.announcedAt !== null &&
    next.announcedAt !== null &&
    row.detail === next.detail &&
    row.link === next.link
  )
}

async function raise(env: Env, event: OperationalEvent, now: Date): Promise<void> {
  const database = db(env.DB)
  for (let i = 0; i < TRIES; i++) {
    const [row, setting] = await Promise.all([
      eventRow(database, event.key),
      readNotificationSettings(database),
    ])
    const decision = decideRaise(row, event, now, await limitsAt(database, setting, now))
    // An announced episode raised again as it is: nothing to write.
    if (!decision.announce && unchanged(row, decision.row)) return
    if (await store(env, row, decision.row, decision.announce ? 'raised' : null, setting, now)) return
  }
  throw new Error(`operational event ${event.key} kept changing during the raise`)
}

async function clear(env: Env, key: string, now: Date): Promise<void> {
  const database = db(env.DB)
  for (let i = 0; i < TRIES; i++) {
    const row = await eventRow(database, key)
    const decision = decideClear(row, now)
    if (!decision) return
    const setting = await readNotificationSettings(database)
    if (await store(env, row, decision.row, decision.allClear ? 'resolved' : null, setting, now)) return
  }
  throw new Error(`operational event ${key} kept changing during the clear`)
}

/**
 * Tells the installation's recipients of a problem (see policy.ts for when). The caller's own change has
 * committed by then, so a failure here is logged, never thrown: it must not undo or retry the caller's work.
 */
export async function raiseOperationalEvent(
  env: Env,
  event: OperationalEvent,
  now = new Date(),
): Promise<void> {
  try {
    await raise(env, event, now)
  } catch (error) {
    console.error(`operational event ${event.key} could not be raised`, error)
  }
}

/** Ends the problem `key` named; the all-clear goes out when it was announced. Logged, never thrown. */
export async function clearOperationalEvent(env: Env, key: string, now = new Date()): Promise<void> {
  try {
    await clear(env, key, now)
  } catch (error) {
    console.error(`operational event ${key} could not be cleared`, error)
  }
}

/** Announces open events held back by the cooldown, the hourly cap or the lack of recipients, once they may. */
export async function announceHeld(env: Env, now: Date): Promise<void> {
  const database = db(env.DB)
  const held = await database
    .select()
    .from(operationalEvents)
    .where(and(eq(operationalEvents.state, 'open'), isNull(operationalEvents.announcedAt)))
    .orderBy(operationalEvents.openedAt)
    .limit(HELD_PER_RUN)
  if (held.length === 0) return
  const setting = await readNotificationSettings(database)
  for (const row of held) {
    if (!mayAnnounce(row, now, await limitsAt(database, setting, now))) continue
    const next = { ...row, announcedAt: now, lastSentAt: now, version: row.version + 1 }
    await store(env, row, next, 'raised', setting, now)
  }
}

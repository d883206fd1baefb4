import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { Metadata } from '../../custom-hostnames/metadata'

/** The one id of the installation-wide notification setting row. */
export const SETTING_ID = 'installation'

/**
 * Where operational notifications go: email recipients and one signed webhook. One row (`id` = SETTING_ID);
 * no row means nobody is told. The webhook secret is sealed with SECRETS_KEY and never returned.
 */
export const notificationSettings = sqliteTable('notification_settings', {
  id: text('id').primaryKey(),
  emails: text('emails', { mode: 'json' }).$type<string[]>().notNull(),
  webhookUrl: text('webhook_url'),
  webhookSecretSealed: text('webhook_secret_sealed'),
  /** Notification channels (their ids) told besides the emails and the webhook. */
  channels: text('channels', { mode: 'json' }).$type<string[]>().notNull().default([]),
  cooldownMinutes: integer('cooldown_minutes').notNull(),
  maxPerHour: integer('max_per_hour').notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

export const OPERATIONAL_KINDS = [
  'domain.failed',
  'custom-hostname.failed',
  'custom-hostname.removal-manual',
  'custom-hostname.stale',
  'nameserver.out-of-sync',
  'node.unhealthy',
  'job.dead-lettered',
  'domain.certificate',
] as const
export type OperationalKind = (typeof OPERATIONAL_KINDS)[number]

/** A custom hostname an operational event is about, as its webhook names it (with the app's metadata). */
export interface NamedHostname {
  id: string
  siteId: string
  hostname: string
  metadata: Metadata | null
}

/**
 * One problem the installation is told about, by its key (`domain:<id>`, `node:<id>`, ...): open while it
 * stands, closed once cleared. `announcedAt` is when the open episode was announced (null while held back by
 * the cooldown, the hourly cap or the lack of recipients); `lastSentAt` is the key's last notification of any
 * kind, which the cooldown counts from. `version` guards concurrent raises and clears.
 */
export const operationalEvents = sqliteTable(
  'operational_events',
  {
    key: text('key').primaryKey(),
    kind: text('kind', { enum: OPERATIONAL_KINDS }).notNull(),
    subject: text('subject').notNull(),
    detail: text('detail').notNull(),
    link: text('link'),
    /** The custom hostnames the event is about, when it is about some; null otherwise. */
    customHostnames: text('custom_hostnames', { mode: 'json' }).$type<NamedHostname[]>(),
    state: text('state', { enum: ['open', 'closed'] }).notNull(),
    openedAt: integer('opened_at', { mode: 'timestamp_ms' }).notNull(),
    closedAt: integer('closed_at', { mode: 'timestamp_ms' }),
    announcedAt: integer('announced_at', { mode: 'timestamp_ms' }),
    lastSentAt: integer('last_sent_at', { mode: 'timestamp_ms' }),
    version: integer('version').notNull(),
  },
  (t) => [index('operational_events_held_idx').on(t.state, t.announcedAt)],
)

export const OPERATIONAL_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const

/**
 * One notification to one recipient (an email address, or the webhook): the delivery log. `notificationId`
 * groups the deliveries of one notification (the hourly cap counts those). `target` is the address or the URL
 * as it was when queued; the log shows it masked.
 */
export const operationalDeliveries = sqliteTable(
  'operational_deliveries',
  {
    id: text('id').primaryKey(),
    notificationId: text('notification_id').notNull(),
    eventKey: text('event_key').notNull(),
    kind: text('kind', { enum: OPERATIONAL_KINDS }).notNull(),
    /** `raised` or `resolved` (the all-clear). */
    event: text('event', { enum: ['raised', 'resolved'] }).notNull(),
    /** `channel`: a notification channel, whose id is the target. */
    channel: text('channel', { enum: ['email', 'webhook', 'channel'] }).notNull(),
    target: text('target').notNull(),
    /** The notification as sent: the webhook's JSON body. */
    payload: text('payload').notNull(),
    status: text('status', { enum: OPERATIONAL_DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull(),
    /** The last attempt's answer (`answered 204`) or error. */
    answer: text('answer'),
    /** The recipients an email channel already reached: a retry sends only to the others. */
    deliveredTo: text('delivered_to', { mode: 'json' }).$type<string[]>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastAttemptAt: integer('last_attempt_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('operational_deliveries_created_idx').on(t.createdAt, t.id),
    index('operational_deliveries_notification_idx').on(t.notificationId),
  ],
)

/** Since when each nameserver box has been seen out of sync (any zone not synced), sampled each minute. */
export const nameserverSyncWatch = sqliteTable('nameserver_sync_watch', {
  nodeId: text('node_id').primaryKey(),
  behindSince: integer('behind_since', { mode: 'timestamp_ms' }).notNull(),
})

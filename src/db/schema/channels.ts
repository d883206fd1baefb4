import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const CHANNEL_KINDS = [
  'email',
  'webhook',
  'slack',
  'discord',
  'telegram',
  'ntfy',
  'pagerduty',
] as const
export type ChannelKind = (typeof CHANNEL_KINDS)[number]

/**
 * A notification channel: where alerts go, in the service's own wire format. `settings` holds what may be shown
 * (recipients, a chat id); `secretSealed` holds what may not (a webhook URL carrying its token, a bot token, a
 * routing key), as JSON sealed with SECRETS_KEY and never returned.
 */
export const channels = sqliteTable(
  'channels',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    kind: text('kind', { enum: CHANNEL_KINDS }).notNull(),
    settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    secretSealed: text('secret_sealed'),
    /** What the list shows of the secret part: a masked URL or a hint. */
    hint: text('hint').notNull(),
    /** Replaces the service's origin (a self-hosted server, a proxy); null for the service itself. */
    apiBaseUrl: text('api_base_url'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('channels_created_idx').on(t.createdAt, t.id)],
)

export const CHANNEL_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'withheld'] as const

/**
 * One message to one channel: a probe notification (retried through the queue) or a test. The row is updated on
 * each attempt; its id is derived from the notification, so a duplicate queue message lands on the same row.
 */
export const channelDeliveries = sqliteTable(
  'channel_deliveries',
  {
    id: text('id').primaryKey(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    probeId: text('probe_id'),
    /** `up->down`, `still_down`, or `test`. */
    event: text('event').notNull(),
    title: text('title').notNull(),
    status: text('status', { enum: CHANNEL_DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull(),
    /** The last attempt's answer (`answered 200: ok`) or error. */
    answer: text('answer'),
    /** The recipients an email channel already reached: a retry sends only to the others. */
    deliveredTo: text('delivered_to', { mode: 'json' }).$type<string[]>(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastAttemptAt: integer('last_attempt_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('channel_deliveries_channel_created_idx').on(t.channelId, t.createdAt, t.id)],
)

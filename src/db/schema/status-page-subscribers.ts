import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { statusPageIncidents, statusPageIncidentUpdates, statusPages } from './status-pages'

export const EMAIL_SUBSCRIPTION_STATES = ['pending', 'confirmed'] as const

/**
 * An address that asked for a public page's incident mail. Pending until the link mailed to it is confirmed;
 * only confirmed addresses receive incident mail. Addresses are never shown (operators see counts only). Each
 * token is kept hashed, for the link to find its row, and sealed, for the mail that carries it.
 */
export const statusPageEmailSubscriptions = sqliteTable(
  'status_page_email_subscriptions',
  {
    id: text('id').primaryKey(),
    statusPageId: text('status_page_id')
      .notNull()
      .references(() => statusPages.id, { onDelete: 'cascade' }),
    /** Lowercased. */
    email: text('email').notNull(),
    state: text('state', { enum: EMAIL_SUBSCRIPTION_STATES }).notNull(),
    /** Null once confirmed. */
    confirmTokenHash: text('confirm_token_hash'),
    confirmTokenSealed: text('confirm_token_sealed'),
    confirmExpiresAt: integer('confirm_expires_at', { mode: 'timestamp_ms' }),
    unsubscribeTokenHash: text('unsubscribe_token_hash').notNull(),
    unsubscribeTokenSealed: text('unsubscribe_token_sealed').notNull(),
    /** The panel's origin where the address subscribed: the mails' links point there. */
    origin: text('origin').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    confirmedAt: integer('confirmed_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('status_page_email_subscriptions_address_idx').on(t.statusPageId, t.email),
    uniqueIndex('status_page_email_subscriptions_confirm_idx').on(t.confirmTokenHash),
    uniqueIndex('status_page_email_subscriptions_unsubscribe_idx').on(t.unsubscribeTokenHash),
    index('status_page_email_subscriptions_state_idx').on(t.statusPageId, t.state),
  ],
)

/** A URL an operator added to a page: every incident update is POSTed there, signed with its secret. */
export const statusPageWebhooks = sqliteTable(
  'status_page_webhooks',
  {
    id: text('id').primaryKey(),
    statusPageId: text('status_page_id')
      .notNull()
      .references(() => statusPages.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    secretSealed: text('secret_sealed').notNull(),
    /** The panel's origin where it was added: the page link in each delivery. */
    origin: text('origin').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('status_page_webhooks_page_idx').on(t.statusPageId, t.createdAt)],
)

export const ANNOUNCEMENT_CHANNELS = ['email', 'webhook'] as const
export const ANNOUNCEMENT_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const

/**
 * One incident update to one subscriber (a confirmed address or a webhook). One row per pair, whatever how often
 * the update is announced: a redelivered job finds the row already delivered and sends nothing.
 */
export const statusPageAnnouncements = sqliteTable(
  'status_page_announcements',
  {
    id: text('id').primaryKey(),
    statusPageId: text('status_page_id')
      .notNull()
      .references(() => statusPages.id, { onDelete: 'cascade' }),
    incidentId: text('incident_id')
      .notNull()
      .references(() => statusPageIncidents.id, { onDelete: 'cascade' }),
    updateId: text('update_id')
      .notNull()
      .references(() => statusPageIncidentUpdates.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: ANNOUNCEMENT_CHANNELS }).notNull(),
    /** The subscription's or webhook's id; removing either leaves the row, which is then skipped. */
    subscriberId: text('subscriber_id').notNull(),
    status: text('status', { enum: ANNOUNCEMENT_STATUSES }).notNull(),
    attempts: integer('attempts').notNull(),
    lastError: text('last_error'),
    /** An attempt in flight holds the row until then, so two copies of a job never both send. */
    claimedUntil: integer('claimed_until', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    deliveredAt: integer('delivered_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('status_page_announcements_once_idx').on(t.updateId, t.channel, t.subscriberId),
    index('status_page_announcements_page_idx').on(t.statusPageId, t.createdAt),
  ],
)

import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export type ReleaseCategory = 'new' | 'improved' | 'fixed'
export type ReleaseSeverity = 'major' | 'minor' | 'patch'

export const changelogReleases = sqliteTable(
  'changelog_releases',
  {
    id: text('id').primaryKey(),
    version: text('version').notNull().unique(),
    title: text('title').notNull(),
    severity: text('severity', { enum: ['major', 'minor', 'patch'] }).notNull(),
    summary: text('summary'),
    items: text('items', { mode: 'json' }).$type<{ category: ReleaseCategory; text: string }[]>().notNull(),
    phase: text('phase'),
    source: text('source', { enum: ['local', 'mirror'] }).notNull(),
    /** Publication date, YYYY-MM-DD (UTC); null while the release is a draft. */
    date: text('date'),
    publishedAt: integer('published_at', { mode: 'timestamp_ms' }),
    createdBy: text('created_by'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('changelog_releases_date_idx').on(t.date)],
)

export const changelogTranslations = sqliteTable(
  'changelog_translations',
  {
    releaseId: text('release_id')
      .notNull()
      .references(() => changelogReleases.id, { onDelete: 'cascade' }),
    lang: text('lang').notNull(),
    title: text('title').notNull(),
    summary: text('summary'),
    items: text('items', { mode: 'json' }).$type<{ text: string }[]>().notNull(),
    machine: integer('machine', { mode: 'boolean' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.releaseId, t.lang] })],
)

export const changelogWebhookTargets = sqliteTable('changelog_webhook_targets', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  secretSealed: text('secret_sealed').notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  /** Why the panel switched the target off by itself (a 410 Gone); null when an admin set enabled. */
  disabledReason: text('disabled_reason'),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

export const DELIVERY_STATUSES = ['queued', 'retrying', 'delivered', 'failed', 'skipped'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const changelogWebhookDeliveries = sqliteTable(
  'changelog_webhook_deliveries',
  {
    id: text('id').primaryKey(),
    targetId: text('target_id')
      .notNull()
      .references(() => changelogWebhookTargets.id, { onDelete: 'cascade' }),
    releaseId: text('release_id').notNull(),
    version: text('version').notNull(),
    /** The exact JSON body, frozen at publish time so every attempt sends the same bytes. */
    body: text('body').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull(),
    lastError: text('last_error'),
    lastStatusCode: integer('last_status_code'),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }),
    deliveredAt: integer('delivered_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('changelog_deliveries_target_idx').on(t.targetId, t.createdAt),
    index('changelog_deliveries_release_idx').on(t.releaseId, t.createdAt),
    index('changelog_deliveries_created_idx').on(t.createdAt),
  ],
)

/** The mirror setting (`changelog.upstream`) and the outcome of its last pull; one row with id `upstream`. */
export const changelogMirror = sqliteTable('changelog_mirror', {
  id: text('id').primaryKey(),
  upstream: text('upstream'),
  etag: text('etag'),
  lastPulledAt: integer('last_pulled_at', { mode: 'timestamp_ms' }),
  lastStatus: text('last_status', { enum: ['ok', 'unchanged', 'failed'] }),
  lastError: text('last_error'),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** One listed probe of a status page: the probe, and the name the public sees instead of the probe's own. */
export interface StatusPageProbe {
  probeId: string
  displayName: string
}

export interface StatusPageGroup {
  name: string
  probes: StatusPageProbe[]
}

/**
 * Public status pages: named groups of probes shown at /status/<slug> (and as JSON and a badge) without
 * authentication when `public` is set. A probe removed later simply drops out of the page.
 */
export const statusPages = sqliteTable(
  'status_pages',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    groups: text('groups', { mode: 'json' }).$type<StatusPageGroup[]>().notNull(),
    public: integer('public', { mode: 'boolean' }).notNull(),
    /** Open an incident when a listed probe goes down and resolve it when it comes back. */
    autoIncidents: integer('auto_incidents', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('status_pages_slug_idx').on(t.slug), index('status_pages_created_idx').on(t.createdAt)],
)

export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const
export const INCIDENT_STATES = ['investigating', 'identified', 'monitoring', 'resolved'] as const

/**
 * An incident told on a status page by its operators (or opened by the page's automatic rule when a listed probe
 * goes down). Its story is its updates; `state` is the newest update's.
 */
export const statusPageIncidents = sqliteTable(
  'status_page_incidents',
  {
    id: text('id').primaryKey(),
    statusPageId: text('status_page_id')
      .notNull()
      .references(() => statusPages.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    impact: text('impact', { enum: INCIDENT_IMPACTS }).notNull(),
    state: text('state', { enum: INCIDENT_STATES }).notNull(),
    /** Probes of the page the incident concerns (may be empty). */
    probeIds: text('probe_ids', { mode: 'json' }).$type<string[]>().notNull(),
    /** Opened by the page's automatic rule rather than by a person. */
    automatic: integer('automatic', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    resolvedAt: integer('resolved_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('status_page_incidents_page_idx').on(t.statusPageId, t.createdAt)],
)

/** One timestamped entry of an incident's story. */
export const statusPageIncidentUpdates = sqliteTable(
  'status_page_incident_updates',
  {
    id: text('id').primaryKey(),
    incidentId: text('incident_id')
      .notNull()
      .references(() => statusPageIncidents.id, { onDelete: 'cascade' }),
    state: text('state', { enum: INCIDENT_STATES }).notNull(),
    message: text('message').notNull(),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('status_page_incident_updates_incident_idx').on(t.incidentId, t.at)],
)

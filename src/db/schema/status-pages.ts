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
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('status_pages_slug_idx').on(t.slug), index('status_pages_created_idx').on(t.createdAt)],
)

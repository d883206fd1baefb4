import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { MaintenanceSchedule } from '../../maintenance/schedule'
import { probes } from './probes'
import { statusPages } from './status-pages'

/**
 * Maintenance windows: while one covers a probe its notifications are withheld (and announced once after, when
 * the state changed), and status pages show it as under maintenance. A window covers the probes it names and
 * the probes listed on the status pages it names.
 */
export const maintenanceWindows = sqliteTable(
  'maintenance_windows',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    schedule: text('schedule', { mode: 'json' }).$type<MaintenanceSchedule>().notNull(),
    /** A one-off window's end; null for a weekly one (which never ends). */
    endsAt: integer('ends_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('maintenance_windows_created_idx').on(t.createdAt)],
)

/** The probes a window names. */
export const maintenanceWindowProbes = sqliteTable(
  'maintenance_window_probes',
  {
    windowId: text('window_id')
      .notNull()
      .references(() => maintenanceWindows.id, { onDelete: 'cascade' }),
    probeId: text('probe_id')
      .notNull()
      .references(() => probes.id, { onDelete: 'cascade' }),
    /** Where the probe stands in the window's list. */
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.windowId, t.probeId] }),
    index('maintenance_window_probes_probe_idx').on(t.probeId),
  ],
)

/** The status pages a window names: it covers the probes each lists (as the page lists them at the time). */
export const maintenanceWindowStatusPages = sqliteTable(
  'maintenance_window_status_pages',
  {
    windowId: text('window_id')
      .notNull()
      .references(() => maintenanceWindows.id, { onDelete: 'cascade' }),
    statusPageId: text('status_page_id')
      .notNull()
      .references(() => statusPages.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.windowId, t.statusPageId] }),
    index('maintenance_window_status_pages_page_idx').on(t.statusPageId),
  ],
)

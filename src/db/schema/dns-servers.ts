import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { nodes } from './fleet'

/** A nameserver box: a node with the nameserver role, plus its PowerDNS API and NS-health. */
export const nameservers = sqliteTable('nameservers', {
  nodeId: text('node_id')
    .primaryKey()
    .references(() => nodes.id, { onDelete: 'cascade' }),
  hostname: text('hostname').notNull().unique(),
  powerDnsApiUrl: text('powerdns_api_url'),
  powerDnsApiKeySealed: text('powerdns_api_key_sealed'),
  powerDnsServerId: text('powerdns_server_id'),
  healthCheckedAt: integer('health_checked_at', { mode: 'timestamp_ms' }),
  healthOk: integer('health_ok', { mode: 'boolean' }),
  healthDetail: text('health_detail'),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

/** A zone served by every nameserver box; its records live on the boxes, never here. */
export const dnsZones = sqliteTable('dns_zones', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  dnssec: integer('dnssec', { mode: 'boolean' }).notNull(),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

/**
 * Whether one box holds the zone's current content. `state` is what people see; a change being written marks
 * the box pending first. `recordsCurrent` says whether the box's records and keys are the zone's current ones,
 * so other boxes may copy from it and a change it takes counts; a change in flight leaves it alone.
 * `generation` rises whenever the box is marked behind, so a job that copied meanwhile cannot call it synced.
 */
export const zoneBoxSync = sqliteTable(
  'zone_box_sync',
  {
    zoneId: text('zone_id')
      .notNull()
      .references(() => dnsZones.id, { onDelete: 'cascade' }),
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    state: text('state', { enum: ['synced', 'pending', 'failed'] }).notNull(),
    recordsCurrent: integer('records_current', { mode: 'boolean' }).notNull().default(false),
    generation: integer('generation').notNull().default(0),
    lastError: text('last_error'),
    attempts: integer('attempts').notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.zoneId, t.nodeId] }), index('zone_box_sync_node_idx').on(t.nodeId)],
)

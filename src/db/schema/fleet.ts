import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const nodes = sqliteTable('nodes', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  roles: text('roles', { mode: 'json' }).$type<('host' | 'nameserver')[]>().notNull(),
  agentUrl: text('agent_url').notNull(),
  /** The name the node's Caddy serves the agent's API under (then `agentUrl` is `https://<agentHostname>`). */
  agentHostname: text('agent_hostname'),
  agentSecretSealed: text('agent_secret_sealed').notNull(),
  publicIpv4: text('public_ipv4'),
  publicIpv6: text('public_ipv6'),
  dnsTarget: text('dns_target'),
  /** The private ranges (CIDRs) checks located on this node may reach; fleet:manage sets them. */
  checkAllowCidrs: text('check_allow_cidrs', { mode: 'json' }).$type<string[]>().notNull().default([]),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

/**
 * The nonce of each signed agent callback the panel accepted, kept until its timestamp leaves the 5-minute
 * window: the primary key refuses the same request a second time, whichever isolate receives it.
 */
export const agentNonces = sqliteTable(
  'agent_nonces',
  {
    nodeId: text('node_id').notNull(),
    nonce: text('nonce').notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.nonce] }), index('agent_nonces_expires_idx').on(t.expiresAt)],
)

export const instances = sqliteTable(
  'instances',
  {
    id: text('id').primaryKey(),
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id),
    name: text('name').notNull(),
    address: text('address').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('instances_node_name_idx').on(t.nodeId, t.name),
    index('instances_node_created_idx').on(t.nodeId, t.createdAt),
    index('instances_created_idx').on(t.createdAt),
  ],
)

export const sites = sqliteTable(
  'sites',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id')
      .notNull()
      .references(() => instances.id),
    name: text('name').notNull(),
    port: integer('port'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('sites_instance_created_idx').on(t.instanceId, t.createdAt),
    index('sites_created_idx').on(t.createdAt),
  ],
)

export const NODE_CHECK_STATES = ['ok', 'unreachable'] as const
export const NODE_ALERTS = ['unreachable', 'refusing'] as const

/**
 * The last agent health check of each node (no row: never checked) and what its alerts last announced. Whether a
 * node that answers refuses its config is not stored here: it is read from its edge version (`failure`).
 */
export const nodeHealth = sqliteTable('node_health', {
  nodeId: text('node_id')
    .primaryKey()
    .references(() => nodes.id, { onDelete: 'cascade' }),
  /** `ok`: the agent answered and its proxy is reachable; `unreachable`: it did not answer, or its proxy did not. */
  checkState: text('check_state', { enum: NODE_CHECK_STATES }).notNull(),
  /** The minute the check ran for (the cron's scheduled time), which orders checks and makes a retry a no-op. */
  checkedAt: integer('checked_at', { mode: 'timestamp_ms' }).notNull(),
  /** When the agent last answered a check. */
  lastSeenAt: integer('last_seen_at', { mode: 'timestamp_ms' }),
  agentVersion: text('agent_version'),
  /** The configVersion the agent said it serves at its last answer. */
  appliedConfigVersion: integer('applied_config_version'),
  /** Why the last check was not ok; null when it was. */
  error: text('error'),
  consecutiveFailures: integer('consecutive_failures').notNull(),
  /** The problem the last alert announced, until the all-clear; null when none stands. */
  alerted: text('alerted', { enum: NODE_ALERTS }),
  /** When the last problem alert was sent (the cooldown counts from it). */
  alertedAt: integer('alerted_at', { mode: 'timestamp_ms' }),
})

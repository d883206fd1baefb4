import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import type { Forward, Vhost } from '../../agent-contract/v1'
import { instances, nodes, sites } from './fleet'

/** What a route puts into its node's edge state, and what the node said about it. */
export interface RouteEdgeConfig {
  vhost: Vhost | null
  forward: Forward | null
  /** The node's configVersion that last confirmed this route. */
  appliedVersion: number | null
  /** Whether the agent manages the firewall (a raw route's rule is applied only then); null before it said. */
  firewallManaged: boolean | null
  /** Why the node does not serve this route's latest version: the agent's refusal, or why it was unreachable. */
  error: string | null
}

export const ROUTE_STATUSES = ['pending', 'active', 'error', 'removed'] as const

/**
 * A way into a site: an http virtual host (hostname → instance address:targetPort) or a raw forward (listenPort/
 * proto on the node → instance address:targetPort). `nodeId` is the instance's node (instances never move), so a
 * port is taken once per node and proto by a unique index, and a hostname once among live routes.
 */
export const routes = sqliteTable(
  'routes',
  {
    id: text('id').primaryKey(),
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id),
    instanceId: text('instance_id')
      .notNull()
      .references(() => instances.id),
    siteId: text('site_id').references(() => sites.id),
    kind: text('kind', { enum: ['http', 'raw'] }).notNull(),
    hostname: text('hostname'),
    targetPort: integer('target_port').notNull(),
    listenPort: integer('listen_port'),
    proto: text('proto', { enum: ['tcp', 'udp'] }),
    deviceName: text('device_name'),
    edgeConfig: text('edge_config', { mode: 'json' }).$type<RouteEdgeConfig>().notNull(),
    status: text('status', { enum: ROUTE_STATUSES }).notNull(),
    /** The node configVersion of this route's last change; a confirmed version at or above it covers it. */
    configVersion: integer('config_version').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('routes_node_listen_idx')
      .on(t.nodeId, t.listenPort, t.proto)
      .where(sql`${t.status} <> 'removed'`),
    uniqueIndex('routes_hostname_idx').on(t.hostname).where(sql`${t.status} <> 'removed'`),
    index('routes_node_idx').on(t.nodeId, t.configVersion),
    // A node's vhosts by hostname: a change's entry found at its cost, the whole state read in pages by keyset.
    index('routes_node_hostname_idx').on(t.nodeId, t.hostname).where(sql`${t.status} <> 'removed'`),
    index('routes_site_idx').on(t.siteId, t.createdAt),
    index('routes_instance_idx').on(t.instanceId, t.createdAt),
  ],
)

/**
 * Each node's edge configuration version: `desired` rises in the same batch as every route change on the node,
 * `applied` is the newest version the agent confirmed. `state` says whether a reconcile chain is under way.
 */
export const nodeEdgeVersions = sqliteTable('node_edge_versions', {
  nodeId: text('node_id')
    .primaryKey()
    .references(() => nodes.id, { onDelete: 'cascade' }),
  desired: integer('desired').notNull(),
  applied: integer('applied').notNull(),
  state: text('state', { enum: ['pending', 'applied', 'failed'] }).notNull(),
  /** Why the newest version failed, or, while pending, why its last attempt did; null once applied. */
  lastError: text('last_error'),
  /**
   * How a failed version failed: `refused` (the agent answered and refused the config) or `unanswered` (no usable
   * answer within the job's attempts); null unless failed.
   */
  failure: text('failure', { enum: ['refused', 'unanswered'] }),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
})

export const EDGE_CHANGE_KINDS = ['vhost', 'forward', 'everything'] as const

/**
 * What each of a node's versions changed, written in the batch that raised it (`bumpVersion`): a vhost by its
 * hostname, a forward by its proto and port, or `everything` for a change that cannot name its entries (the
 * node then gets its whole state). The reconcile sends the entries of the versions after the applied one; the
 * batch that records a version applied deletes the rows up to it.
 */
export const nodeEdgeChanges = sqliteTable(
  'node_edge_changes',
  {
    nodeId: text('node_id')
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    kind: text('kind', { enum: EDGE_CHANGE_KINDS }).notNull(),
    hostname: text('hostname'),
    proto: text('proto', { enum: ['tcp', 'udp'] }),
    listenPort: integer('listen_port'),
  },
  (t) => [index('node_edge_changes_version_idx').on(t.nodeId, t.version)],
)

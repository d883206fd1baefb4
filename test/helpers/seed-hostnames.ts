import { env } from 'cloudflare:workers'
import type { Vhost } from '../../src/agent-contract/v1'

export interface SeedTarget {
  nodeId: string
  instanceId: string
  siteId: string
}

/** The name of seeded hostname `i` under `zone`, in hostname order with i. */
export const seededHostname = (zone: string, i: number) => `h${String(i).padStart(6, '0')}.${zone}`

/**
 * Seeds `count` custom hostnames of the site, served by the node (row, claim and an active route each, confirmed
 * at the node's version 1, the version it serves), in three statements: the way a node serving many hostnames
 * looks after they were registered and applied. Answers the vhosts the node serves for them.
 */
export async function seedServedHostnames(target: SeedTarget, zone: string, count: number): Promise<Vhost[]> {
  const database = (env as unknown as { DB: D1Database }).DB
  const now = Date.now()
  const prefix = crypto.randomUUID().slice(0, 8)
  await database.batch([
    database
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
        INSERT INTO custom_hostnames (id, site_id, hostname, tier, state, reason, zone_name, records, generation,
          attempts, dns_resolves, dns_resolved_at, created_at, updated_at)
        SELECT ?2 || '-' || i, ?3, printf('h%06d.', i) || ?4, 'external', 'instructions', 'external-zone', ?4,
          '[]', 1, 0, 1, ?5, ?5, ?5 FROM n`,
      )
      .bind(count, prefix, target.siteId, zone, now),
    database
      .prepare(
        `INSERT INTO hostname_claims (hostname, kind, site_id, owner_id, created_at)
        SELECT hostname, 'custom-hostname', site_id, id, created_at FROM custom_hostnames WHERE id LIKE ?1 || '-%'`,
      )
      .bind(prefix),
    database
      .prepare(
        `INSERT INTO routes (id, node_id, instance_id, site_id, kind, hostname, target_port, edge_config, status,
          config_version, created_at, updated_at)
        SELECT 'route-' || id, ?2, ?3, site_id, 'http', hostname, 80,
          json_object('vhost', json_object('hostname', hostname, 'upstream', '10.0.0.5:80', 'issuer', 'pebble'),
            'forward', NULL, 'appliedVersion', 1, 'firewallManaged', NULL, 'error', NULL),
          'active', 1, created_at, created_at
        FROM custom_hostnames WHERE id LIKE ?1 || '-%'`,
      )
      .bind(prefix, target.nodeId, target.instanceId),
    database
      .prepare(
        `INSERT INTO node_edge_versions (node_id, desired, applied, state, updated_at) VALUES (?1, 1, 1, 'applied', ?2)
        ON CONFLICT (node_id) DO UPDATE SET desired = 1, applied = 1, state = 'applied'`,
      )
      .bind(target.nodeId, now),
  ])
  return Array.from({ length: count }, (_, i) => ({
    hostname: seededHostname(zone, i),
    upstream: '10.0.0.5:80',
    issuer: 'pebble' as const,
    issuable: true,
  }))
}

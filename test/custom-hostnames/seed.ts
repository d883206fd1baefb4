import { env } from 'cloudflare:workers'
import type { Env } from '../../src/env'
import type { SiteFixture } from './fixture'

const workerEnv = env as unknown as Env

/**
 * Seeds `count` custom hostnames `h<i>.<zone>` on the site straight into D1, as register leaves them (an
 * instructions row, its claim and its active http route on the node), in three statements whatever the count.
 * `createdAt` rises with i, so the newest first list starts at the highest i.
 */
export async function seedHostnames(site: SiteFixture, zone: string, count: number): Promise<void> {
  const numbers = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)`
  const hostname = `'h' || i || '.' || ?2`
  const id = `?3 || '-' || i`
  const records = `json_array(json_object('type', 'CNAME', 'name', ${hostname}, 'value', 'edge.example.net', 'ttl', 300))`
  const vhost = `json_object('hostname', ${hostname}, 'upstream', '10.0.0.5:80', 'issuer', 'letsencrypt')`
  const edgeConfig = `json_object('vhost', json(${vhost}), 'forward', null, 'appliedVersion', 1, 'firewallManaged', null, 'error', null)`
  const tag = crypto.randomUUID().slice(0, 8)
  const at = Date.now() - count - 1_000
  await workerEnv.DB.batch([
    workerEnv.DB.prepare(
      `${numbers} INSERT INTO custom_hostnames (id, site_id, hostname, tier, state, reason, zone_name, writer_kind,
        writer_id, records, generation, attempts, dns_resolves, created_at, updated_at)
       SELECT ${id}, ?4, ${hostname}, 'external', 'instructions', 'external-zone', ?2, null, null, ${records},
        1, 0, 0, ?5 + i, ?5 + i FROM n`,
    ).bind(count, zone, `ch-${tag}`, site.siteId, at),
    workerEnv.DB.prepare(
      `${numbers} INSERT INTO hostname_claims (hostname, kind, site_id, owner_id, created_at)
       SELECT ${hostname}, 'custom-hostname', ?4, ${id}, ?5 + i FROM n`,
    ).bind(count, zone, `ch-${tag}`, site.siteId, at),
    workerEnv.DB.prepare(
      `${numbers} INSERT INTO routes (id, node_id, instance_id, site_id, kind, hostname, target_port, edge_config,
        status, config_version, created_at, updated_at)
       SELECT ${id}, ?6, ?7, ?4, 'http', ${hostname}, 80, ${edgeConfig}, 'active', 1, ?5 + i, ?5 + i FROM n`,
    ).bind(count, zone, `rt-${tag}`, site.siteId, at, site.nodeId, site.instanceId),
  ])
}

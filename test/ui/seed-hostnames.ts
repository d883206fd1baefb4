import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { executeSqlFile } from './wrangler-dev.ts'

export interface SeedTarget {
  nodeId: string
  instanceId: string
  siteId: string
}

/**
 * Seeds `count` custom hostnames `h<i>.<zone>` on the site straight into the panel's local D1, as register leaves
 * them (an instructions row, its claim and its active http route): one SQL file of three statements, however many.
 * `createdAt` rises with i, so newest first lists start at the highest i.
 */
export async function seedHostnames(target: SeedTarget, zone: string, count: number): Promise<void> {
  const tag = zone.replace(/[^a-z0-9]/g, '')
  const at = Date.now() - count - 1_000
  const numbers = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})`
  const hostname = `'h' || i || '.${zone}'`
  const records = `json_array(json_object('type', 'CNAME', 'name', ${hostname}, 'value', 'edge.example.net', 'ttl', 300))`
  const vhost = `json_object('hostname', ${hostname}, 'upstream', '10.0.0.5:80', 'issuer', 'pebble')`
  const edgeConfig = `json_object('vhost', json(${vhost}), 'forward', null, 'appliedVersion', 1, 'firewallManaged', null, 'error', null)`
  const sql = `
${numbers} INSERT INTO custom_hostnames (id, site_id, hostname, tier, state, reason, zone_name, writer_kind,
  writer_id, records, generation, attempts, dns_resolves, created_at, updated_at)
  SELECT 'ch-${tag}-' || i, '${target.siteId}', ${hostname}, 'external', 'instructions', 'external-zone', '${zone}',
  null, null, ${records}, 1, 0, 0, ${at} + i, ${at} + i FROM n;
${numbers} INSERT INTO hostname_claims (hostname, kind, site_id, owner_id, created_at)
  SELECT ${hostname}, 'custom-hostname', '${target.siteId}', 'ch-${tag}-' || i, ${at} + i FROM n;
${numbers} INSERT INTO routes (id, node_id, instance_id, site_id, kind, hostname, target_port, edge_config, status,
  config_version, created_at, updated_at)
  SELECT 'rt-${tag}-' || i, '${target.nodeId}', '${target.instanceId}', '${target.siteId}', 'http', ${hostname}, 80,
  ${edgeConfig}, 'active', 1, ${at} + i, ${at} + i FROM n;
`
  const file = path.join(tmpdir(), `panel-ui-seed-${tag}.sql`)
  writeFileSync(file, sql)
  await executeSqlFile(inject('ui').persistTo, file)
}

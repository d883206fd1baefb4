import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { seedHostnames } from './custom-hostnames/seed'
import { meterD1 } from './helpers/d1-meter'
import { type Caller, ok, send } from './helpers/http'
import { runJob } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession, tokenFor } from './helpers/principals'

// GET /metrics: OpenMetrics (or the Prometheus text format for a text/plain-only Accept) for a principal holding
// settings:view, reading at most `limit` rows of each per-entity family per scrape.

const ORIGIN_UP = 'https://metrics-target.probes-example.com'
const OPENMETRICS = 'application/openmetrics-text; version=1.0.0; charset=utf-8'

let admin: Caller
let viewer: Caller

beforeAll(async () => {
  admin = await adminSession()
  viewer = await tokenFor(admin, ['settings:view'])
})

const scrape = (caller: Caller | null, query = '', accept?: string) =>
  send(`/metrics${query}`, {
    headers: {
      ...(caller?.token ? { authorization: `Bearer ${caller.token}` } : {}),
      ...(accept ? { accept } : {}),
    },
  })

/** The value of the one sample line starting with `prefix` (a name and its labels), or null. */
function sampleValue(text: string, prefix: string): number | null {
  const lines = text.split('\n').filter((line) => line.startsWith(`${prefix} `))
  if (lines.length > 1) throw new Error(`${lines.length} samples start with ${prefix}`)
  return lines[0] === undefined ? null : Number(lines[0].slice(prefix.length + 1))
}

/** Seeds `count` live probes straight into D1 (random hex ids, as probes.create makes them), in one statement. */
async function seedProbes(count: number): Promise<void> {
  const now = Date.now()
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
     INSERT INTO probes (id, name, type, target_kind, target, config, notify_config, state, enabled,
       consecutive_failures, created_at, updated_at)
     SELECT lower(hex(randomblob(16))), 'seeded ' || i, 'tcp', 'external', 'db.example.com:5432', '{}', '{}',
       'up', 1, 0, ?2, ?2 FROM n`,
  )
    .bind(count, now)
    .run()
}

describe('who may read /metrics', () => {
  it('should answer 401 without a credential and 403 without settings:view, as problem+json', async () => {
    const anonymous = await scrape(null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('content-type')).toContain('application/problem+json')
    const probesOnly = await tokenFor(admin, ['probes:view'])
    const refused = await scrape(probesOnly)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({
      code: 'forbidden',
      detail: expect.stringContaining('settings:view'),
    })
    const site = await siteWithToken(admin)
    expect((await scrape(site.app)).status).toBe(403)
  })

  it('should refuse a shard outside the shards with 400 naming shard', async () => {
    const bad = await scrape(viewer, '?shard=4&shards=4')
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ issues: [{ path: 'shard' }] })
    expect((await scrape(viewer, '?limit=0')).body).toMatchObject({ issues: [{ path: 'limit' }] })
  })
})

describe('what a scrape shows', () => {
  it('should expose probes, their latency, certificates, nodes and failed jobs in OpenMetrics', async () => {
    fakeOrigin(ORIGIN_UP, () => new Response('ok'))
    const probe = await ok<{ id: string }>(
      'probes.create',
      { name: 'api "eu"\\west', type: 'http', targetKind: 'external', target: `${ORIGIN_UP}/` },
      admin,
    )
    expect((await runJob({ type: 'probe.check', probeId: probe.id, scheduledAt: Date.now() })).acked).toBe(
      true,
    )
    const site = await siteWithToken(admin)
    const zone = zoneName('metrics')
    await seedHostnames(site, zone, 1)
    const now = Date.now()
    const expiry = Date.UTC(2027, 0, 1)
    const domainId = crypto.randomUUID()
    await env.DB.batch([
      env.DB.prepare(
        `insert into domains (id, site_id, hostname, driver, dns_state, issuer, cert_state, cert_expires_at, proxied,
         verification, records, written, step, generation, attempts, step_started_at, created_at, updated_at)
         values (?, ?, ?, 'manual', 'verified', 'pebble', 'issued', ?, 0, '[]', '[]', '[]', 'done', 1, 0, ?, ?, ?)`,
      ).bind(domainId, site.siteId, `www.${zone}`, expiry, now, now, now),
      env.DB.prepare(
        `insert into certificate_observations (owner_id, node_id, hostname, not_after, serial, issuer, observed_at,
         received_at) select id, ?, hostname, ?, '01', 'pebble', ?, ? from custom_hostnames where zone_name = ?`,
      ).bind(site.nodeId, expiry + 1000, now, now, zone),
      env.DB.prepare(
        `insert into node_health (node_id, check_state, checked_at, last_seen_at, consecutive_failures)
         values (?, 'unreachable', ?, ?, 2)`,
      ).bind(site.nodeId, now, now - 120_000),
      env.DB.prepare(
        `insert into failed_jobs (id, kind, body, target, target_kind, target_id, state, attempts, retries,
         first_attempt_at, last_attempt_at) values (?, 'metrics.test-kind', '{}', 'x', 'node', 'x', 'dead', 3, 0, ?, ?)`,
      ).bind(crypto.randomUUID(), now, now),
    ])

    const answer = await scrape(viewer)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.headers.get('content-type')).toBe(OPENMETRICS)
    const text = answer.text
    expect(text.endsWith('# EOF\n')).toBe(true)
    // The name's quote and backslash are escaped inside the label value.
    const labels = `probe_id="${probe.id}",probe_name="api \\"eu\\"\\\\west",probe_type="http"`
    expect(sampleValue(text, `probe_state{${labels},probe_state="up"}`)).toBe(1)
    expect(sampleValue(text, `probe_state{${labels},probe_state="down"}`)).toBe(0)
    expect(sampleValue(text, `probe_up{${labels}}`)).toBe(1)
    expect(text).toContain('# TYPE probe_state stateset')
    expect(text).toContain('# UNIT probe_check_latency_seconds seconds')
    // One timed check today: in every bucket from its own up, and in the count.
    expect(sampleValue(text, `probe_check_latency_seconds_bucket{probe_id="${probe.id}",le="10.0"}`)).toBe(1)
    expect(sampleValue(text, `probe_check_latency_seconds_bucket{probe_id="${probe.id}",le="+Inf"}`)).toBe(1)
    expect(sampleValue(text, `probe_check_latency_seconds_count{probe_id="${probe.id}"}`)).toBe(1)
    expect(sampleValue(text, `probe_check_latency_seconds_created{probe_id="${probe.id}"}`)).toBe(
      Math.floor(now / 86_400_000) * 86_400,
    )
    expect(
      sampleValue(
        text,
        `domain_certificate_expiry_timestamp_seconds{domain_id="${domainId}",hostname="www.${zone}"}`,
      ),
    ).toBe(expiry / 1000)
    expect(text).toMatch(
      new RegExp(
        `custom_hostname_certificate_expiry_timestamp_seconds\\{[^}]*hostname="h1\\.${zone.replace(/\./g, '\\.')}",node_id="${site.nodeId}"\\} ${(expiry + 1000) / 1000}\\n`,
      ),
    )
    expect(text).toMatch(new RegExp(`node_up\\{node_id="${site.nodeId}",node_name="[^"]+"\\} 0\\n`))
    expect(sampleValue(text, 'panel_failed_jobs{kind="metrics.test-kind",state="dead"}')).toBe(1)
    expect(sampleValue(text, 'panel_metrics_truncated{family="probes"}')).toBe(0)

    // The older text format for a scraper that accepts only text/plain: no UNIT, no _created, no EOF.
    const plain = await scrape(viewer, '', 'text/plain;version=0.0.4')
    expect(plain.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(plain.text).not.toContain('# EOF')
    expect(plain.text).not.toContain('_created')
    expect(plain.text).toContain('# TYPE probe_state gauge')
    expect(sampleValue(plain.text, `probe_up{${labels}}`)).toBe(1)
  })

  it('should read at most limit + 1 rows of probes per scrape, flag the cut, and split the ids by shard', async () => {
    const rowsOfScrape = async (query: string) => {
      await scrape(viewer, query) // warms the token's principal
      const meter = meterD1()
      const answer = await scrape(viewer, query)
      meter.stop()
      expect(answer.status).toBe(200)
      return { rows: meter.rowsRead(), text: answer.text }
    }
    await seedProbes(10)
    const small = await rowsOfScrape('')
    await seedProbes(10_000)
    const large = await rowsOfScrape('')
    const sharded = await rowsOfScrape('?shards=16&shard=5&limit=10000')
    console.log(
      `rows read by one scrape: ${small.rows} with ~10 probes, ${large.rows} with ~10,010 (limit 1000), ${sharded.rows} for shard 5 of 16 (limit 10000)`,
    )
    expect(sampleValue(small.text, 'panel_metrics_truncated{family="probes"}')).toBe(0)
    expect(sampleValue(large.text, 'panel_metrics_truncated{family="probes"}')).toBe(1)
    expect(large.text.match(/^probe_up\{/gm)).toHaveLength(1000)
    expect(large.rows).toBeLessThan(2 * 1001 + 200)
    const shardUp = sharded.text.match(/^probe_up\{/gm)?.length ?? 0
    expect(shardUp).toBeGreaterThan(400)
    expect(shardUp).toBeLessThan(900)
    expect(sampleValue(sharded.text, 'panel_metrics_truncated{family="probes"}')).toBe(0)
    expect(sharded.rows).toBeLessThan(2 * shardUp + 200)
  }, 120_000)
})

import { env } from 'cloudflare:workers'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'
import { createProbe } from './probes/catalogue-fixture'

// overview.summary: the overview page's counts and what fails now, in one call, for the areas the caller may view.

interface Failing {
  id: string
  name: string
  state: string
  siteId: string | null
}
interface Area {
  total: number
  failing: number
  waiting: number
  named: Failing[]
}
type Summary = Record<'nodes' | 'sites' | 'domains' | 'customHostnames' | 'probes' | 'jobs', Area | null>

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  captureJobs()
})

const summary = (caller: Caller) => ok<Summary>('overview.summary', {}, caller)

describe('overview.summary', () => {
  it('should count each area and name what fails now: an unreachable node, a failed hostname, a down probe', async () => {
    const before = await summary(admin)
    const site = await siteWithToken(admin)
    const hostname = `shop.${zoneName('overview')}`
    const registered = await ok<{ id: string }>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    const probe = await createProbe(admin, { name: 'overview checkout' })
    const archived = await createProbe(admin, { name: 'overview archived' })
    await ok('probes.archive', { id: archived.id }, admin)
    // What the health check, the hostname's job and the probe's check would have written.
    const now = Date.now()
    await env.DB.batch([
      env.DB.prepare(
        `insert into node_health (node_id, check_state, checked_at, error, consecutive_failures)
         values (?, 'unreachable', ?, 'connection refused', 3)`,
      ).bind(site.nodeId, now),
      env.DB.prepare(`update custom_hostnames set state = 'failed', reason = 'test' where id = ?`).bind(
        registered.id,
      ),
      env.DB.prepare(`update probes set state = 'down', last_changed_at = ? where id in (?, ?)`).bind(
        now,
        probe.id,
        archived.id,
      ),
    ])

    const after = await summary(admin)
    expect(after.nodes).toMatchObject({
      total: (before.nodes?.total ?? 0) + 1,
      failing: (before.nodes?.failing ?? 0) + 1,
    })
    expect(after.nodes?.named).toContainEqual({
      id: site.nodeId,
      name: expect.any(String),
      state: 'unreachable',
      siteId: null,
    })
    expect(after.sites).toMatchObject({ total: (before.sites?.total ?? 0) + 1, failing: 0, named: [] })
    expect(after.customHostnames).toMatchObject({
      total: (before.customHostnames?.total ?? 0) + 1,
      failing: (before.customHostnames?.failing ?? 0) + 1,
    })
    expect(after.customHostnames?.named).toContainEqual({
      id: registered.id,
      name: hostname,
      state: 'failed',
      siteId: site.siteId,
    })
    // The archived probe counts neither as a probe nor as down.
    expect(after.probes).toMatchObject({
      total: (before.probes?.total ?? 0) + 1,
      failing: (before.probes?.failing ?? 0) + 1,
    })
    expect(after.probes?.named.map((named) => named.id)).toEqual(expect.arrayContaining([probe.id]))
    expect(after.probes?.named.map((named) => named.id)).not.toContain(archived.id)
    expect(after.domains).toMatchObject({ total: expect.any(Number), failing: expect.any(Number) })
  })

  it('should count what is waiting beside the failures: domains in progress, hostnames instructions or pending, probes never checked', async () => {
    const before = await summary(admin)
    const site = await siteWithToken(admin)
    const now = Date.now()
    const domain = (step: string) =>
      env.DB.prepare(
        `insert into domains (id, site_id, hostname, driver, dns_state, issuer, cert_state, proxied, verification,
         records, written, step, generation, attempts, step_started_at, created_at, updated_at)
         values (?, ?, ?, 'manual', 'pending', 'pebble', 'none', 0, '[]', '[]', '[]', ?, 1, 0, ?, ?, ?)`,
      ).bind(crypto.randomUUID(), site.siteId, `${step}.${zoneName('waiting')}`, step, now, now, now)
    const hostnames = await Promise.all(
      ['instructions', 'pending', 'active', 'failed'].map((state) =>
        ok<{ id: string }>(
          'customHostnames.register',
          { siteId: site.siteId, hostname: `${state}.${zoneName('waiting')}` },
          site.app,
        ).then((registered) => ({ state, id: registered.id })),
      ),
    )
    const neverChecked = await createProbe(admin, { name: 'overview never checked' })
    const checked = await createProbe(admin, { name: 'overview checked' })
    const pausedByHand = await createProbe(admin, { name: 'overview paused by hand', enabled: false })
    await env.DB.batch([
      domain('dns-verify'),
      domain('certificate'),
      domain('green'),
      domain('failed'),
      ...hostnames.map(({ state, id }) =>
        env.DB.prepare('update custom_hostnames set state = ? where id = ?').bind(state, id),
      ),
      env.DB.prepare(`update probes set state = 'up', last_checked_at = ? where id = ?`).bind(
        now,
        checked.id,
      ),
    ])

    const after = await summary(admin)
    expect(after.domains).toMatchObject({
      total: (before.domains?.total ?? 0) + 4,
      failing: (before.domains?.failing ?? 0) + 1,
      waiting: (before.domains?.waiting ?? 0) + 2,
    })
    expect(after.customHostnames).toMatchObject({
      total: (before.customHostnames?.total ?? 0) + 4,
      failing: (before.customHostnames?.failing ?? 0) + 1,
      waiting: (before.customHostnames?.waiting ?? 0) + 2,
    })
    // Only the enabled probe that was never checked waits; one paused by hand does not.
    expect(after.probes).toMatchObject({
      total: (before.probes?.total ?? 0) + 3,
      waiting: (before.probes?.waiting ?? 0) + 1,
    })
    expect(neverChecked.state).toBe('paused')
    expect(pausedByHand.enabled).toBe(false)
    for (const key of ['nodes', 'sites', 'jobs'] as const) expect(after[key]?.waiting).toBe(0)
  })

  it('should count a node that answers but refuses its config as failing, and drop it once it applies', async () => {
    const site = await siteWithToken(admin)
    const now = Date.now()
    await env.DB.batch([
      env.DB.prepare(
        `insert into node_health (node_id, check_state, checked_at, last_seen_at, consecutive_failures)
         values (?, 'ok', ?, ?, 0)`,
      ).bind(site.nodeId, now, now),
      env.DB.prepare(
        `insert into node_edge_versions (node_id, desired, applied, state, last_error, failure, updated_at)
         values (?, 2, 1, 'failed', 'caddy refused the config', 'refused', ?)
         on conflict (node_id) do update set state = 'failed', failure = 'refused', last_error = excluded.last_error`,
      ).bind(site.nodeId, now),
    ])
    const refusing = await summary(admin)
    expect(refusing.nodes?.named).toContainEqual(
      expect.objectContaining({ id: site.nodeId, state: 'refusing' }),
    )

    await env.DB.prepare(
      `update node_edge_versions set state = 'applied', applied = desired, failure = null, last_error = null
       where node_id = ?`,
    )
      .bind(site.nodeId)
      .run()
    const applied = await summary(admin)
    expect(applied.nodes?.named.map((named) => named.id)).not.toContain(site.nodeId)
    expect(applied.nodes?.failing).toBe((refusing.nodes?.failing ?? 0) - 1)
  })

  it('should count failed jobs not yet succeeded and name the dead ones', async () => {
    const before = await summary(admin)
    const seed = (id: string, state: string, target: string) =>
      env.DB.prepare(
        `insert into failed_jobs (id, kind, body, target, target_kind, target_id, state, attempts, retries,
           last_error, first_attempt_at, last_attempt_at)
         values (?, 'route.reconcile', '{}', ?, 'node', ?, ?, 18, 0, 'agent answered 502', ?, ?)`,
      ).bind(id, target, id, state, Date.now(), Date.now())
    const dead = crypto.randomUUID()
    await env.DB.batch([
      seed(dead, 'dead', 'node overview-dead'),
      seed(crypto.randomUUID(), 'retrying', 'node overview-retrying'),
      seed(crypto.randomUUID(), 'succeeded', 'node overview-succeeded'),
    ])
    const after = await summary(admin)
    expect(after.jobs).toMatchObject({
      total: (before.jobs?.total ?? 0) + 2,
      failing: (before.jobs?.failing ?? 0) + 1,
    })
    expect(after.jobs?.named).toContainEqual({
      id: dead,
      name: 'node overview-dead',
      state: 'dead',
      siteId: null,
    })
  })

  it('should leave out the areas the caller may not view', async () => {
    const probesOnly = await tokenFor(admin, ['probes:view'])
    expect(await summary(probesOnly)).toEqual({
      nodes: null,
      sites: null,
      domains: null,
      customHostnames: null,
      probes: expect.objectContaining({ total: expect.any(Number) }),
      jobs: null,
    })
    const operator = await operatorSession(admin)
    const seen = await summary(operator)
    for (const area of Object.values(seen)) expect(area).not.toBeNull()
  })

  it('should refuse a site token and an input it does not know', async () => {
    const site = await siteWithToken(admin)
    expect((await call('overview.summary', {}, site.app)).status).toBe(403)
    const unknown = await call('overview.summary', { state: 'down' }, admin)
    expect(unknown.status).toBe(400)
  })
})

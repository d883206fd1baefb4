import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { seedHostnames } from './custom-hostnames/seed'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'
import { createProbe } from './probes/catalogue-fixture'

const workerDb = () => (env as unknown as { DB: D1Database }).DB

let admin: Caller
let site: SiteFixture
const tag = crypto.randomUUID().slice(0, 8)

beforeAll(async () => {
  admin = await adminSession()
  site = await siteWithToken(admin)
})

async function insertHostnames(table: 'custom_hostnames' | 'domains', hostnames: string[]): Promise<void> {
  const db = workerDb()
  const now = Date.now()
  await db.batch(
    hostnames.map((hostname, i) =>
      table === 'custom_hostnames'
        ? db
            .prepare(
              `insert into custom_hostnames (id, site_id, hostname, tier, state, reason, zone_name, records, generation,
               attempts, dns_resolves, created_at, updated_at)
               values (?, ?, ?, 'external', 'instructions', 'external-zone', ?, '[]', 1, 0, 0, ?, ?)`,
            )
            .bind(
              crypto.randomUUID(),
              site.siteId,
              hostname,
              hostname.split('.').slice(1).join('.'),
              now + i,
              now,
            )
        : db
            .prepare(
              `insert into domains (id, site_id, hostname, driver, dns_state, issuer, cert_state, proxied, verification,
               records, written, step, generation, attempts, step_started_at, created_at, updated_at)
               values (?, ?, ?, 'manual', 'pending', 'pebble', 'none', 0, '[]', '[]', '[]', 'dns-verify', 1, 0, ?, ?, ?)`,
            )
            .bind(crypto.randomUUID(), site.siteId, hostname, now, now + i, now),
    ),
  )
}

describe('search on the lists that grow long', () => {
  it("finds a site's custom hostnames containing the text, any case, with % and _ taken literally", async () => {
    await insertHostnames('custom_hostnames', [
      `shop.${tag}.example`,
      `blog.${tag}.example`,
      `shop-eu.${tag}.example`,
      `shop_x.${tag}.example`,
      `shopxx.${tag}.example`,
    ])
    const names = async (search: string, limit = 100) => {
      const body = await ok<{ hostnames: { hostname: string }[]; nextCursor: string | null }>(
        'customHostnames.list',
        { siteId: site.siteId, search, limit },
        site.app,
      )
      return body.hostnames.map((row) => row.hostname)
    }
    expect(await names('SHOP')).toEqual([
      `shopxx.${tag}.example`,
      `shop_x.${tag}.example`,
      `shop-eu.${tag}.example`,
      `shop.${tag}.example`,
    ])
    expect(await names('shop_')).toEqual([`shop_x.${tag}.example`])
    expect(await names('%')).toEqual([])
    expect(await names('blog')).toEqual([`blog.${tag}.example`])
    // Paging keeps the search: two pages of two, then the end.
    const first = await ok<{ hostnames: { id: string }[]; nextCursor: string | null }>(
      'customHostnames.list',
      { siteId: site.siteId, search: 'shop', limit: 2 },
      site.app,
    )
    const second = await ok<{ hostnames: { id: string }[]; nextCursor: string | null }>(
      'customHostnames.list',
      { siteId: site.siteId, search: 'shop', limit: 2, cursor: first.nextCursor },
      site.app,
    )
    expect(first.hostnames).toHaveLength(2)
    expect(second.hostnames).toHaveLength(2)
    expect(second.nextCursor).toBeNull()
  })

  it("finds a site's domains whose hostname contains the text", async () => {
    await insertHostnames('domains', [
      `www.${tag}-one.example`,
      `api.${tag}-two.example`,
      `www.${tag}-two.example`,
    ])
    const body = await ok<{ domains: { hostname: string }[]; nextCursor: string | null }>(
      'domains.list',
      { siteId: site.siteId, search: `${tag}-TWO` },
      admin,
    )
    expect(body.domains.map((row) => row.hostname)).toEqual([
      `www.${tag}-two.example`,
      `api.${tag}-two.example`,
    ])
    expect(body.nextCursor).toBeNull()
  })

  it("finds a site's routes whose hostname contains the text, a page at a time by the last id", async () => {
    const zone = `${tag}-routes.example`
    await seedHostnames(site, zone, 12)
    const page = (input: Record<string, unknown>) =>
      ok<{ id: string; hostname: string | null }[]>(
        'routes.listForSite',
        { siteId: site.siteId, ...input },
        admin,
      )
    const found = await page({ search: `H11.${tag}-ROUTES` })
    expect(found.map((route) => route.hostname)).toEqual([`h11.${zone}`])
    const tens = await page({ search: 'h1', limit: 2 })
    expect(tens.map((route) => route.hostname)).toEqual([`h12.${zone}`, `h11.${zone}`])
    const next = await page({ search: 'h1', limit: 2, cursor: tens.at(-1)?.id })
    expect(next.map((route) => route.hostname)).toEqual([`h10.${zone}`, `h1.${zone}`])
    expect(await page({ search: 'nothing-routes-here' })).toEqual([])
    expect((await call('routes.listForSite', { siteId: site.siteId, search: '' }, admin)).status).toBe(400)
  })

  it('finds probes whose name or target contains the text', async () => {
    const byName = await createProbe(admin, { name: `Checkout ${tag}` })
    const byTarget = await createProbe(admin, {
      name: 'storefront',
      target: `https://${tag}.probes-example.com/`,
    })
    await createProbe(admin, { name: `other ${tag.slice(0, 4)}x` })
    const found = await ok<{ id: string }[]>('probes.list', { search: tag }, admin)
    expect(found.map((probe) => probe.id)).toEqual([byTarget.id, byName.id])
    expect(await ok<unknown[]>('probes.list', { search: `checkout ${tag}` }, admin)).toHaveLength(1)
  })

  it('finds audit entries whose action, actor or target contains the text, with the other filters', async () => {
    const probe = await createProbe(admin, { name: `audited ${tag}` })
    const byTarget = await ok<{ entries: { action: string; targetId: string | null }[] }>(
      'audit.list',
      { search: probe.id.slice(4, 20) },
      admin,
    )
    expect(byTarget.entries.map((entry) => [entry.action, entry.targetId])).toEqual([
      ['probe.create', probe.id],
    ])
    const byAction = await ok<{ entries: { action: string }[] }>(
      'audit.list',
      { search: 'PROBE.CREA', limit: 500 },
      admin,
    )
    expect(byAction.entries.length).toBeGreaterThanOrEqual(1)
    expect(byAction.entries.every((entry) => entry.action === 'probe.create')).toBe(true)
    const me = (await ok<{ user: { id: string } }>('auth.me', {}, admin)).user
    const byActor = await ok<{ entries: { principal: { id: string | null } }[] }>(
      'audit.list',
      { search: me.id, action: 'probe.create', limit: 500 },
      admin,
    )
    expect(byActor.entries.length).toBeGreaterThanOrEqual(1)
    expect(byActor.entries.every((entry) => entry.principal.id === me.id)).toBe(true)
  })

  it('refuses an empty or overlong search, naming search', async () => {
    for (const search of ['', 'x'.repeat(201)]) {
      const answer = await call<{ issues?: { path: string }[] }>('probes.list', { search }, admin)
      expect(answer.status).toBe(400)
      expect(answer.body.issues?.map((issue) => issue.path)).toContain('search')
    }
  })
})

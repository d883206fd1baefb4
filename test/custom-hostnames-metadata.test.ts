import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { hostedZones } from './custom-hostnames/hosted-zone'
import { seedHostnames } from './custom-hostnames/seed'
import { captureJobs } from './dns-servers/run-job'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { deliverOps, opsInbox } from './helpers/notifications'
import { adminSession } from './helpers/principals'

// The app's own metadata on a custom hostname (Cloudflare for SaaS's custom_metadata): set at register, read back
// in status, list and the operational webhooks naming the hostname; a flat JSON object of at most 4 KB.

const workerEnv = env as unknown as Env
let admin: Caller
let site: SiteFixture
let zone: string

beforeEach(async () => {
  captureJobs()
  admin = await adminSession()
  site = await siteWithToken(admin)
  zone = zoneName('meta')
})

const register = (hostname: string, extra: Record<string, unknown> = {}) =>
  call<Record<string, unknown>>(
    'customHostnames.register',
    { siteId: site.siteId, hostname, ...extra },
    site.app,
  )
const status = (hostname: string) =>
  ok<Record<string, unknown>>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const listed = async (hostname: string) => {
  const page = await ok<{ hostnames: Record<string, unknown>[] }>(
    'customHostnames.list',
    { siteId: site.siteId, search: hostname },
    site.app,
  )
  return page.hostnames.find((row) => row.hostname === hostname)
}

describe('metadata on a custom hostname', () => {
  it('should keep the metadata register sets, and show it in the answer, status and the list row', async () => {
    const hostname = `shop.${zone}`
    const metadata = { customerId: 'cus_123', plan: 'pro', seats: 12, trial: false, note: null }
    const registered = await register(hostname, { metadata })
    expect(registered.status).toBe(200)
    expect(registered.body).toMatchObject({ hostname, state: 'instructions', metadata })
    expect(await status(hostname)).toMatchObject({ state: 'instructions', metadata })
    expect(await listed(hostname)).toMatchObject({ hostname, metadata })
  })

  it('should keep it on a register again without metadata, replace it on one with, and clear it with null', async () => {
    const hostname = `again.${zone}`
    await register(hostname, { metadata: { customerId: 'cus_1' } })
    expect((await register(hostname)).body).toMatchObject({ metadata: { customerId: 'cus_1' } })
    expect(await status(hostname)).toMatchObject({ metadata: { customerId: 'cus_1' } })
    expect((await register(hostname, { metadata: { customerId: 'cus_2' } })).body).toMatchObject({
      metadata: { customerId: 'cus_2' },
    })
    expect(await status(hostname)).toMatchObject({ metadata: { customerId: 'cus_2' } })
    const cleared = await register(hostname, { metadata: null })
    expect(cleared.body).not.toHaveProperty('metadata')
    expect(await status(hostname)).not.toHaveProperty('metadata')
    expect(await listed(hostname)).not.toHaveProperty('metadata')
  })

  it('should show no metadata field for a hostname registered without one', async () => {
    const hostname = `plain.${zone}`
    expect((await register(hostname)).body).not.toHaveProperty('metadata')
    expect(await status(hostname)).not.toHaveProperty('metadata')
  })

  it('should take exactly 4,096 bytes of UTF-8 JSON and refuse one byte more, naming metadata', async () => {
    const hostname = `big.${zone}`
    // {"k":"…"} is 8 bytes around the value; "é" is 2 bytes in UTF-8, so characters alone would undercount.
    const fits = { k: 'é'.repeat(2044) }
    expect(new TextEncoder().encode(JSON.stringify(fits)).length).toBe(4096)
    expect((await register(hostname, { metadata: fits })).status).toBe(200)
    const over = { k: `${'é'.repeat(2044)}x` }
    expect(new TextEncoder().encode(JSON.stringify(over)).length).toBe(4097)
    const refused = await register(hostname, { metadata: over })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/)
    expect(refused.body).toMatchObject({
      code: 'validation_failed',
      issues: [{ path: 'metadata', message: expect.stringMatching(/4096 bytes/) }],
    })
    // Nothing changed: the row keeps what it had.
    expect(await status(hostname)).toMatchObject({ metadata: fits })
  })

  it.each([
    ['an array', ['a'], 'metadata'],
    ['a string', 'cus_123', 'metadata'],
    ['a number', 7, 'metadata'],
    ['a nested object', { customer: { id: 'cus_1' } }, 'metadata.customer'],
    ['a nested array', { tags: ['a', 'b'] }, 'metadata.tags'],
  ])('should refuse %s with 400 naming the field, and write no row', async (_, metadata, path) => {
    const hostname = `bad-${crypto.randomUUID().slice(0, 6)}.${zone}`
    const refused = await register(hostname, { metadata })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      code: 'validation_failed',
      issues: [expect.objectContaining({ path })],
    })
    expect((await call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).status).toBe(
      404,
    )
  })

  it('should keep a list page of 100 rows within the bytes its rows hold (measured with and without metadata)', async () => {
    const plain = zoneName('bytes-plain')
    const small = zoneName('bytes-small')
    const full = zoneName('bytes-full')
    for (const seeded of [plain, small, full]) await seedHostnames(site, seeded, 100)
    const setAll = (seeded: string, metadata: Record<string, string>) =>
      workerEnv.DB.prepare('UPDATE custom_hostnames SET metadata = ? WHERE zone_name = ?')
        .bind(JSON.stringify(metadata), seeded)
        .run()
    const smallMetadata = { customerId: 'cus_0123456789', plan: 'pro' }
    await setAll(small, smallMetadata)
    await setAll(full, { k: 'x'.repeat(4088) })
    const pageBytes = async (seeded: string) => {
      const page = await call(
        'customHostnames.list',
        { siteId: site.siteId, search: seeded, limit: 100 },
        site.app,
      )
      expect((page.body as { hostnames: unknown[] }).hostnames).toHaveLength(100)
      return new TextEncoder().encode(page.text).length
    }
    const bytes = {
      plain: await pageBytes(plain),
      small: await pageBytes(small),
      full: await pageBytes(full),
    }
    const smallBytes = JSON.stringify(smallMetadata).length
    console.log(
      `list page of 100 rows: ${bytes.plain} bytes without metadata, ${bytes.small} with ${smallBytes}-byte metadata, ${bytes.full} with 4,096-byte metadata`,
    )
    // A row without metadata carries no field for it; one with it carries its bytes and `,"metadata":` (12).
    expect(bytes.small - bytes.plain).toBe(100 * (smallBytes + 12))
    // The full zone's name is one character shorter, in the hostname and its record (and two nulls of slack).
    expect(bytes.full - bytes.plain).toBeLessThanOrEqual(100 * (4096 + 12))
    expect(bytes.full - bytes.plain).toBeGreaterThan(100 * 4096)
  })
})

describe('metadata in the operational webhook', () => {
  const hosted = hostedZones('meta')

  it('should carry the hostname with its metadata in custom-hostname.failed', async () => {
    const world = await hosted.fresh()
    const inbox = await opsInbox(world.admin)
    const hostname = `taken.${world.zone}`
    const metadata = { customerId: 'cus_42' }
    await ok('customHostnames.register', { siteId: world.site.siteId, hostname, metadata }, world.site.app)
    // A record that appears before the write fails the row.
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: world.zoneId, name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      world.admin,
    )
    await drainJobs(world.sent, 'custom-hostname.')
    const [failed] = await deliverOps(world.sent, inbox)
    const row = await ok<{ hostnames: { id: string }[] }>(
      'customHostnames.list',
      { siteId: world.site.siteId },
      world.site.app,
    )
    expect(failed).toMatchObject({
      kind: 'custom-hostname.failed',
      customHostnames: [{ id: row.hostnames[0]?.id, siteId: world.site.siteId, hostname, metadata }],
    })
  })
})

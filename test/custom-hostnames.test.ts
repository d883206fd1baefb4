import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { adminSession } from './helpers/principals'

interface Registration {
  id: string
  hostname: string
  tier: string
  state: string
  records: { type: string; name: string; value: string; ttl: number }[]
  reason?: string
}
interface Status {
  state: string
  tier: string
  records: Registration['records']
  dns: { resolves: boolean; checkedAt: string }
  cert: { issued: boolean; notAfter?: string; observedAt?: string }
  failureRemedy?: string
}

const workerEnv = env as unknown as Env
const boxes = [
  new FakePowerDns('https://pdns-a.hostnames.test', 'hostnames-key-a'),
  new FakePowerDns('https://pdns-b.hostnames.test', 'hostnames-key-b'),
]
const [boxA, boxB] = boxes as [FakePowerDns, FakePowerDns]
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let zone: string
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'hostnames', boxes)
    enrolled = true
  }
  site = await siteWithToken(admin)
  zone = zoneName('hosted')
  await ok('dnsServers.zones.create', { name: zone }, admin)
})

async function allowList(allowedZones: string[], siteId = site.siteId) {
  return ok<{ warning: string | null }>('customHostnames.settings.set', { siteId, allowedZones }, admin)
}

/** Runs every custom-hostname job queued so far (and the ones they queue) until none is left. */

describe('customHostnames.probe', () => {
  it('should hand out records for a zone the panel does not control, writing nothing', async () => {
    const before = await ok<{ entries: unknown[] }>('audit.list', { limit: 200 }, admin)
    const probe = await ok(
      'customHostnames.probe',
      { siteId: site.siteId, hostname: 'shop.customer.com' },
      site.app,
    )
    expect(probe).toEqual({
      hostname: 'shop.customer.com',
      verdict: 'instructions',
      reason: 'external-zone',
      tier: 'external',
      zoneName: 'customer.com',
      records: [
        { type: 'CNAME', name: 'shop.customer.com', value: expect.stringMatching(/^edge\./), ttl: 300 },
      ],
      cnameTarget: expect.stringMatching(/^edge\./),
      registered: false,
    })
    const after = await ok<{ entries: unknown[] }>('audit.list', { limit: 200 }, admin)
    expect(after.entries.length).toBe(before.entries.length)
    expect(sent).toEqual([])
    expect(await ok('customHostnames.list', { siteId: site.siteId }, site.app)).toEqual({
      hostnames: [],
      nextCursor: null,
    })
  })

  it('should say auto for an allow-listed hosted zone and zone-not-allow-listed otherwise', async () => {
    const input = { siteId: site.siteId, hostname: `app.${zone}` }
    expect(await ok('customHostnames.probe', input, site.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'zone-not-allow-listed',
      tier: 'hosted',
      zoneName: zone,
    })
    await allowList([zone])
    expect(await ok('customHostnames.probe', input, site.app)).toMatchObject({
      verdict: 'auto',
      reason: null,
      tier: 'hosted',
    })
  })

  it('should plan a hostname of more labels than D1 binds parameters (119 candidate zones)', async () => {
    const hostname = `${'a.'.repeat(118)}deep-customer.com`
    const probe = await call('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
    expect(probe.status, probe.text).toBe(200)
    expect(probe.body).toMatchObject({ verdict: 'instructions', zoneName: 'deep-customer.com' })
  })

  it('should answer 400 naming hostname for what the rules refuse', async () => {
    for (const hostname of [
      'Shop.Customer.com',
      '*.customer.com',
      '192.0.2.1',
      'co.uk',
      `${'a'.repeat(64)}.com`,
    ]) {
      const result = await call('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
      expect(result.status, `${hostname}: ${result.text}`).toBe(400)
      expect(result.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'hostname' }] })
    }
  })
})

describe('customHostnames.settings', () => {
  it('should accept * with a warning, refuse zones the panel does not control, and keep the list deny-by-default', async () => {
    expect(await ok('customHostnames.settings.get', { siteId: site.siteId }, admin)).toEqual({
      siteId: site.siteId,
      allowedZones: [],
      warning: null,
      askUrl: null,
      removeStaleAfterDays: null,
    })
    const wildcard = await allowList(['*'])
    expect(wildcard.warning).toMatch(/every zone/i)
    const unknown = await call(
      'customHostnames.settings.set',
      { siteId: site.siteId, allowedZones: [zone, 'not-ours.com'] },
      admin,
    )
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.body).toMatchObject({ issues: [{ path: 'allowedZones.1' }] })
    expect(await ok('customHostnames.settings.get', { siteId: site.siteId }, admin)).toMatchObject({
      allowedZones: ['*'],
    })
  })

  it('should never let a site token read or widen its own allow-list', async () => {
    const set = await call(
      'customHostnames.settings.set',
      { siteId: site.siteId, allowedZones: ['*'] },
      site.app,
    )
    expect(set.status, set.text).toBe(403)
    const get = await call('customHostnames.settings.get', { siteId: site.siteId }, site.app)
    expect(get.status, get.text).toBe(403)
  })
})

describe('customHostnames.register in a hosted zone', () => {
  it('should write the CNAME to every box, turn active, and remove exactly that record', async () => {
    await allowList([zone])
    const hostname = `shop.${zone}`
    const registered = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(registered).toMatchObject({ hostname, tier: 'hosted', state: 'pending' })
    expect(registered.reason).toBeUndefined()
    await drainJobs(sent, 'custom-hostname.')
    const target = registered.records[0]?.value
    expect(boxA.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    expect(boxB.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status).toMatchObject({ state: 'active', tier: 'hosted', cert: { issued: false } })
    expect(status.failureRemedy).toBeUndefined()

    const again = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(again).toMatchObject({ id: registered.id, state: 'active', records: registered.records })

    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removing',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(boxA.lookup(hostname, 'CNAME')).toEqual([])
    const gone = await call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(gone.status, gone.text).toBe(404)
  })

  it('should give instructions when the zone is not allow-listed and write nothing', async () => {
    const hostname = `www.${zone}`
    const registered = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(registered).toMatchObject({
      state: 'instructions',
      reason: 'zone-not-allow-listed',
      tier: 'hosted',
    })
    expect(sent.map((job) => job.body.type)).toEqual(['route.reconcile'])
    expect(boxA.lookup(hostname, 'CNAME')).toEqual([])
    // Allow-listing later and registering again starts the write.
    await allowList([zone])
    const again = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(again).toMatchObject({ id: registered.id, state: 'pending' })
    await drainJobs(sent, 'custom-hostname.')
    expect(boxA.lookup(hostname, 'CNAME')).toHaveLength(1)
  })

  it('should remove an instructions row at once and free the hostname', async () => {
    const hostname = 'portal.customer-owned.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removed',
    })
    expect(await ok('customHostnames.list', { siteId: site.siteId }, site.app)).toEqual({
      hostnames: [],
      nextCursor: null,
    })
    const other = await siteWithToken(admin)
    const elsewhere = await call('customHostnames.register', { siteId: other.siteId, hostname }, other.app)
    expect(elsewhere.status, elsewhere.text).toBe(200)
  })

  it('should fail with the box error when no box takes the write, after the retries', async () => {
    await allowList([zone])
    const hostname = `down.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    boxA.down = true
    boxB.down = true
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status.state).toBe('failed')
    expect(status.failureRemedy).toContain(`CNAME ${hostname}`)
    expect(status.failureRemedy).toContain("the zone's DNS servers did not answer")
    // The box's own words are for operators; the app's token reads only what it can act on.
    expect(status.failureRemedy).not.toMatch(/connection refused|PowerDNS|127\.0\.0\.1|box/)
    const seenByAdmin = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, admin)
    expect(seenByAdmin.failureRemedy).toMatch(/Operator detail: .*connection refused/)
    // Registering again once the boxes are back tries again.
    boxA.down = false
    boxB.down = false
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'pending',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'active',
    })
  })

  it('should land on removal-manual naming the records when the boxes refuse the delete', async () => {
    await allowList([zone])
    const hostname = `stuck.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    for (const box of boxes)
      box.answer = (request) =>
        request.method === 'PATCH'
          ? Response.json({ error: 'RRset stuck: delete refused' }, { status: 422 })
          : null
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status.state).toBe('removal-manual')
    expect(status.failureRemedy).toContain(`CNAME ${hostname}`)
    expect(status.failureRemedy).not.toMatch(/delete refused/)
    const seenByAdmin = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, admin)
    expect(seenByAdmin.failureRemedy).toMatch(/Operator detail: .*delete refused/)
  })

  it('should not replace records the panel did not create that appeared at the name after register', async () => {
    await allowList([zone])
    const hostname = `taken.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: await zoneId(zone), name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      admin,
    )
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status.state).toBe('failed')
    expect(status.failureRemedy).toMatch(/did not create/)
    expect(boxA.lookup(hostname, 'A')).toEqual(['198.51.100.1'])
  })
})

async function zoneId(name: string): Promise<string | undefined> {
  const zones = await ok<{ id: string; name: string }[]>('dnsServers.zones.list', {}, admin)
  return zones.find((z) => z.name === name)?.id
}

describe('routing', () => {
  it('should route a registered hostname to its site at once (so its certificate can be issued) and unroute it on remove', async () => {
    const hostname = 'shop.routed-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const routes = await ok<{ kind: string; hostname: string; status: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes).toEqual([expect.objectContaining({ kind: 'http', hostname, status: 'pending' })])
    expect(sent.map((job) => job.body.type)).toContain('route.reconcile')
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    const after = await ok<{ status: string }[]>('routes.listForSite', { siteId: site.siteId }, admin)
    expect(after.map((route) => route.status)).toEqual(['removed'])
  })

  it('should route a live hostname again on re-register after its route was removed by hand', async () => {
    await allowList([zone])
    const hostname = `rerouted.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'active',
    })
    const [route] = await ok<{ id: string }[]>('routes.listForSite', { siteId: site.siteId }, admin)
    await ok('routes.remove', { id: route?.id }, admin)
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const routes = await ok<{ hostname: string; status: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes.filter((r) => r.status !== 'removed')).toEqual([expect.objectContaining({ hostname })])
  })
})

describe('collisions', () => {
  it('should give one winner and one 409 collision for two sites registering at once', async () => {
    const other = await siteWithToken(admin)
    const hostname = `race-${crypto.randomUUID().slice(0, 6)}.customer.com`
    const results = await Promise.all([
      call('customHostnames.register', { siteId: site.siteId, hostname }, site.app),
      call('customHostnames.register', { siteId: other.siteId, hostname }, other.app),
    ])
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    expect(results.find((r) => r.status === 409)?.body).toMatchObject({ code: 'collision' })
    const loser = results[0]?.status === 409 ? site : other
    const probe = await ok('customHostnames.probe', { siteId: loser.siteId, hostname }, loser.app)
    expect(probe).toMatchObject({ verdict: 'blocked', reason: 'collision', registered: false })
  })
})

describe('site tokens', () => {
  it('should keep a site token to its own site and to the five customHostnames procedures', async () => {
    const other = await siteWithToken(admin)
    await ok(
      'customHostnames.register',
      { siteId: other.siteId, hostname: 'a.other-customer.com' },
      other.app,
    )
    for (const name of ['probe', 'status', 'register', 'remove']) {
      const result = await call(
        `customHostnames.${name}`,
        { siteId: other.siteId, hostname: 'a.other-customer.com' },
        site.app,
      )
      expect(result.status, `${name}: ${result.text}`).toBe(403)
    }
    const list = await call('customHostnames.list', { siteId: other.siteId }, site.app)
    expect(list.status, list.text).toBe(403)
    // Refused before the handler: nothing of either site is read (only the token itself is).
    const statements = vi.spyOn(workerEnv.DB, 'prepare')
    await call('customHostnames.status', { siteId: other.siteId, hostname: 'a.other-customer.com' }, site.app)
    const touched = statements.mock.calls
      .map(([query]) => query)
      .filter((q) => /custom_hostname|hostname_claims|"sites"/.test(q))
    expect(touched).toEqual([])
    for (const name of ['auth.me', 'nodes.list', 'sites.tokens.list', 'customHostnames.settings.get']) {
      const result = await call(name, name === 'sites.tokens.list' ? { siteId: site.siteId } : {}, site.app)
      expect(result.status, `${name}: ${result.text}`).toBe(403)
    }
    const mint = await call('sites.tokens.create', { siteId: site.siteId, name: 'child' }, site.app)
    expect(mint.status, mint.text).toBe(403)
  })

  it('should answer 401 once the token is revoked or its site removed', async () => {
    await ok('sites.tokens.revoke', { id: site.app.tokenId }, admin)
    const revoked = await call('customHostnames.list', { siteId: site.siteId }, site.app)
    expect(revoked.status, revoked.text).toBe(401)

    const other = await siteWithToken(admin)
    await ok('sites.remove', { id: other.siteId }, admin)
    const orphan = await call('customHostnames.list', { siteId: other.siteId }, other.app)
    expect(orphan.status, orphan.text).toBe(401)
  })

  it('should refuse to remove a site that still holds custom hostnames', async () => {
    await ok(
      'customHostnames.register',
      { siteId: site.siteId, hostname: 'keep.customer-site.com' },
      site.app,
    )
    const removed = await call('sites.remove', { id: site.siteId }, admin)
    expect(removed.status, removed.text).toBe(409)
    expect(removed.text).toContain('keep.customer-site.com')
  })

  it('should default to both permissions, refuse others, and never show the token again', async () => {
    const narrow = await call(
      'sites.tokens.create',
      { siteId: site.siteId, name: 'wide', permissions: ['fleet:view'] },
      admin,
    )
    expect(narrow.status, narrow.text).toBe(400)
    const viewer = await ok<{ token: string; permissions: string[] }>(
      'sites.tokens.create',
      { siteId: site.siteId, name: 'viewer', permissions: ['custom-hostnames:view'] },
      admin,
    )
    expect(viewer.token).toMatch(/^spat_/)
    const write = await call(
      'customHostnames.register',
      { siteId: site.siteId, hostname: 'x.viewer-customer.com' },
      { token: viewer.token },
    )
    expect(write.status, write.text).toBe(403)
    const listed = await ok<Record<string, unknown>[]>('sites.tokens.list', { siteId: site.siteId }, admin)
    expect(listed).toHaveLength(2)
    for (const row of listed) expect(row).not.toHaveProperty('token')
  })
})

describe('status', () => {
  it('should report dns.resolves from the resolver and that no certificate was seen yet', async () => {
    const hostname = 'shop.resolving-customer.com'
    const registered = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    const target = registered.records[0]?.value ?? ''
    new FakeDoh().set(hostname, 'CNAME', [`${target}.`]).install()
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status).toMatchObject({ state: 'instructions', dns: { resolves: true }, cert: { issued: false } })
    expect(Date.parse(status.dns.checkedAt)).toBeGreaterThan(Date.now() - 60_000)
  })
})

describe('a node with nothing to point at', () => {
  it('should answer register and probe instructions site_has_no_target with no records, never 409', async () => {
    const bare = await siteWithToken(admin, { dnsTarget: null, publicIpv4: null, publicIpv6: null })
    const input = { siteId: bare.siteId, hostname: 'shop.bare-customer.com' }
    const register = await call('customHostnames.register', input, bare.app)
    expect(register.status, register.text).toBe(200)
    expect(register.body).toMatchObject({ state: 'instructions', reason: 'site_has_no_target', records: [] })
    expect(await ok('customHostnames.probe', input, bare.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'site_has_no_target',
      registered: true,
    })
  })
})

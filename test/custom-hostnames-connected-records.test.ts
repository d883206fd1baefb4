import { beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import type { DnsFake } from './fakes/dns-fake'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'

// A site token never touches what the panel did not write in a connected zone, and every record the panel writes
// through a provider is found and deleted again, whatever the queue redelivers or interleaves.

interface Status {
  state: string
  failureRemedy?: string
}

const cf = cloudflareFake()
const digitalOcean = digitalOceanFake()
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
// Runs before a request reaches the Cloudflare fake: a race at an exact point of the write.
let beforeCloudflare: ((request: Request) => Promise<void>) | null

beforeEach(async () => {
  beforeCloudflare = null
  fakeOrigin(cf.origin, async (request) => {
    await beforeCloudflare?.(request)
    return cf.handle(request)
  })
  fakeOrigin(digitalOcean.origin, digitalOcean.handle)
  sent = captureJobs()
  admin = await adminSession()
  // No DNS target: names below the apex get A records too, the kind that can be appended beside another.
  site = await siteWithToken(admin, { dnsTarget: null })
})

async function connectedZone(fake: DnsFake, provider: 'provider_a' | 'provider_b', label: string) {
  const name = zoneName(label)
  const zone = fake.addZone(name)
  const account = await ok<{ id: string; name: string }>(
    'accounts.create',
    { kind: 'dns', name: `${label}-${crypto.randomUUID().slice(0, 6)}`, provider, token: fake.token },
    admin,
  )
  await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [name] }, admin)
  return { name, zone, account }
}

const status = (hostname: string) =>
  call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const shown = (hostname: string) =>
  ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const at = (fake: DnsFake, name: string) =>
  fake.records.filter((r) => r.name === name || `${r.name}.` === name).map((r) => `${r.type} ${r.content}`)

describe('a connected zone: records the panel did not write', () => {
  it('should never append beside an address someone else holds: probe and register instructions naming it, proceeding once it is gone', async () => {
    const { name, zone } = await connectedZone(cf, 'provider_a', 'foreign')
    const hostname = `www.${name}`
    const foreign = cf.addRecord(zone, { type: 'A', name: hostname, content: '203.0.113.50', ttl: 300 })
    const inTheWay = [{ type: 'A', name: hostname, value: '203.0.113.50' }]
    expect(await ok('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'foreign-records',
      tier: 'connected',
      inTheWay,
    })
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'instructions',
      reason: 'foreign-records',
      inTheWay,
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await shown(hostname)).state).toBe('instructions')
    expect(at(cf, hostname)).toEqual(['A 203.0.113.50'])
    cf.records.splice(cf.records.indexOf(foreign), 1)
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'pending',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await shown(hostname)).state).toBe('active')
    expect(at(cf, hostname)).toEqual(['A 203.0.113.10'])
  })

  it('should not take over the apex of a zone that holds an address', async () => {
    const { name, zone } = await connectedZone(cf, 'provider_a', 'apex')
    cf.addRecord(zone, { type: 'A', name, content: '203.0.113.60', ttl: 300 })
    expect(
      await ok('customHostnames.register', { siteId: site.siteId, hostname: name }, site.app),
    ).toMatchObject({
      state: 'instructions',
      reason: 'foreign-records',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(at(cf, name)).toEqual(['A 203.0.113.60'])
  })

  it('should count an identical record as present, never as its own, whatever the provider answers to a create', async () => {
    const { name, zone } = await connectedZone(cf, 'provider_a', 'identical')
    const hostname = `shop.${name}`
    cf.addRecord(zone, { type: 'A', name: hostname, content: '203.0.113.10', ttl: 300 })
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await shown(hostname)).state).toBe('active')
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).status).toBe(404)
    expect(at(cf, hostname)).toEqual(['A 203.0.113.10'])
  })

  it('should show a site token no provider words, and an operator all of them', async () => {
    const { name, zone } = await connectedZone(cf, 'provider_a', 'words')
    const hostname = `x.${name}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    cf.zones.splice(cf.zones.indexOf(zone), 1)
    await drainJobs(sent, 'custom-hostname.')
    const forApp = await shown(hostname)
    expect(forApp.state).toBe('failed')
    expect(forApp.failureRemedy).toContain(`A ${hostname} → 203.0.113.10`)
    expect(forApp.failureRemedy).not.toMatch(/provider_a|Cloudflare|HTTP|account/)
    const forOperator = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, admin)
    expect(forOperator.failureRemedy).toMatch(/Operator detail: provider_a \(Cloudflare API v4\) account/)
  })
})

describe('a connected zone: every record the panel writes is deleted on remove', () => {
  it('should recognise its own create after a lost answer (provider_b), write it once, and delete it', async () => {
    const { name } = await connectedZone(digitalOcean, 'provider_b', 'lost')
    const hostname = `lost.${name}`
    digitalOcean.loseNextCreateAnswer = true
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(digitalOcean.loseNextCreateAnswer).toBe(false)
    expect((await shown(hostname)).state).toBe('active')
    expect(digitalOcean.records.filter((r) => r.type === 'A')).toHaveLength(1)
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).status).toBe(404)
    expect(digitalOcean.records.filter((r) => r.type === 'A')).toHaveLength(0)
  })

  it('should delete the record of a create that a remove overtook', async () => {
    const { name } = await connectedZone(cf, 'provider_a', 'overtaken')
    const hostname = `racing.${name}`
    let removed: { status: number; body: unknown } | null = null
    beforeCloudflare = async (request) => {
      if (request.method === 'POST' && !removed)
        removed = await call('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    }
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(removed).toMatchObject({ status: 200, body: { state: 'removing' } })
    expect((await status(hostname)).status).toBe(404)
    expect(at(cf, hostname)).toEqual([])
  })

  it('should refuse to remove a DNS account a custom hostname uses, naming it', async () => {
    const { name, account } = await connectedZone(cf, 'provider_a', 'in-use')
    const hostname = `used.${name}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    const refused = await call('accounts.remove', { id: account.id }, admin)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.text).toContain(`the custom hostname ${hostname}`)
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await ok('accounts.remove', { id: account.id }, admin)).toEqual({ removed: true })
  })
})

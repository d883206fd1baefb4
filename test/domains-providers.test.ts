import { beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { getDomain, stepsOf } from './domains/fixture'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { FakePowerDns } from './fakes/powerdns'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'

const cf = cloudflareFake()
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let agent: FakeNodeAgent
let doh: FakeDoh

beforeEach(async () => {
  cf.rateLimitRetryAfter = null
  cf.tokenStatus = 'active'
  doh = new FakeDoh().install()
  sent = captureJobs()
  admin = await adminSession()
  site = await siteWithToken(admin)
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
})

async function cloudflareAccount(): Promise<string> {
  fakeOrigin(cf.origin, cf.handle)
  const account = await ok<{ id: string }>(
    'accounts.create',
    { kind: 'dns', name: `cf-${crypto.randomUUID().slice(0, 6)}`, provider: 'provider_a', token: cf.token },
    admin,
  )
  return account.id
}

describe('domains.drivers', () => {
  it('should list manual, then configured providers, then selfhosted once a nameserver fleet exists', async () => {
    expect(await ok('domains.drivers', {}, admin)).toEqual({
      drivers: [{ id: 'manual', label: expect.any(String), supportsProxy: false }],
      issuers: ['pebble', 'letsencrypt'],
    })
    await cloudflareAccount()
    const box = new FakePowerDns('https://pdns.drivers.test', 'drivers-key').install()
    await enrollBoxes(admin, 'drivers', [box])
    const { drivers } = await ok<{ drivers: { id: string; supportsProxy: boolean }[] }>(
      'domains.drivers',
      {},
      admin,
    )
    expect(drivers.map((d) => [d.id, d.supportsProxy])).toEqual([
      ['manual', false],
      ['provider_a', true],
      ['selfhosted', false],
    ])
  })
})

describe('domains.testCredentials', () => {
  it('should say ok for manual, verify a provider account, and report a refused token', async () => {
    expect(await ok('domains.testCredentials', { driver: 'manual' }, admin)).toEqual({
      ok: true,
      detail: expect.any(String),
    })
    const accountId = await cloudflareAccount()
    expect(await ok('domains.testCredentials', { accountId }, admin)).toMatchObject({ ok: true })
    expect(await ok('domains.testCredentials', { driver: 'provider_a' }, admin)).toMatchObject({ ok: true })
    cf.tokenStatus = 'disabled'
    const refused = await ok<{ ok: boolean; detail: string }>('domains.testCredentials', { accountId }, admin)
    expect(refused.ok).toBe(false)
    expect(refused.detail).toContain('provider_a')
    expect((await call('domains.testCredentials', { accountId: 'nope' }, admin)).status).toBe(404)
    const both = await call('domains.testCredentials', { accountId, driver: 'manual' }, admin)
    expect(both.status, both.text).toBe(400)
  })
})

describe('provider_a domains', () => {
  it('should write the record proxied, verify it through the resolver and go green; setProxied applies on the next attach', async () => {
    const accountId = await cloudflareAccount()
    await ok('accounts.setDefault', { scope: 'node', scopeId: site.nodeId, kind: 'dns', accountId }, admin)
    const zone = zoneName('proxied')
    cf.addZone(zone)
    const hostname = `www.${zone}`
    doh.set(hostname, 'A', ['104.16.1.1'])
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname, driver: 'provider_a', proxied: true },
      admin,
    )
    await drainJobs(sent, '', 40)
    const green = await getDomain(domainId, admin)
    expect(green).toMatchObject({
      driver: 'provider_a',
      proxied: true,
      dnsState: 'verified',
      certState: 'issued',
    })
    expect(stepsOf(green).map(([step]) => step)).toEqual([
      'driver-check',
      'dns-write',
      'dns-verify',
      'route-setup',
      'certificate',
      'smoke-test',
    ])
    expect(green.verification[2]?.detail).toContain('proxied')
    const written = () => cf.records.filter((r) => r.name === hostname)
    expect(written().map((r) => [r.type, r.proxied])).toEqual([['CNAME', true]])
    expect(agent.edge.vhosts.map((v) => v.hostname)).toEqual([hostname])

    expect(await ok('domains.setProxied', { id: domainId, proxied: false }, admin)).toEqual({
      proxied: false,
      reattachToApply: true,
    })
    expect(written().map((r) => r.proxied)).toEqual([true])
    const target = (await ok<{ target: string }>('domains.list', { siteId: site.siteId }, admin)).target
    doh.set(hostname, 'CNAME', [`${target}.`])
    await ok('domains.attach', { siteId: site.siteId, hostname }, admin)
    await drainJobs(sent, '', 40)
    expect(written().map((r) => [r.type, r.proxied])).toEqual([['CNAME', false]])
    expect(await getDomain(domainId, admin)).toMatchObject({ dnsState: 'verified', certState: 'issued' })

    await ok('domains.detach', { id: domainId }, admin)
    await drainJobs(sent, '', 40)
    expect(written()).toEqual([])
  })

  it('should refuse a provider none of whose accounts holds the zone or is the default for the node', async () => {
    await cloudflareAccount()
    const result = await call(
      'domains.attach',
      { siteId: site.siteId, hostname: `a.${zoneName('nodefault')}`, driver: 'provider_a' },
      admin,
    )
    expect(result.status, result.text).toBe(400)
    expect(result.body).toMatchObject({ issues: [{ path: 'driver' }] })
  })

  it('should fail at the DNS write when the account holds no zone for the hostname', async () => {
    const accountId = await cloudflareAccount()
    await ok('accounts.setDefault', { scope: 'node', scopeId: site.nodeId, kind: 'dns', accountId }, admin)
    const hostname = `a.${zoneName('nozone')}`
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname },
      admin,
    )
    await drainJobs(sent, '', 40)
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ driver: 'provider_a', dnsState: 'failed', certState: 'none' })
    expect(failed.failureRemedy).toContain('DNS write')
    expect(failed.failureRemedy).toContain('holds no zone')
    expect(failed.failureRemedy).toContain(`CNAME ${hostname}`)
  })
})

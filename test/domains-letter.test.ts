import { beforeEach, describe, expect, it } from 'vitest'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { attachGreen, type DomainWorld, domainWorld, getDomain, stepsOf, workerEnv } from './domains/fixture'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'

// Domains to the letter of the contract: hostnames by the custom-hostname rule, the driver picked from who holds
// the zone, setProxied on any driver, renew after a failed renew, and no green while detaching.

const cf = cloudflareFake()
let world: DomainWorld

beforeEach(async () => {
  world = await domainWorld()
  fakeOrigin(cf.origin, cf.handle)
})

const everything = () => drainJobs(world.sent, '', 40)

async function cloudflareAccount(label: string): Promise<{ id: string; name: string }> {
  const name = `${label}-${crypto.randomUUID().slice(0, 6)}`
  const account = await ok<{ id: string }>(
    'accounts.create',
    { kind: 'dns', name, provider: 'provider_a', token: cf.token },
    world.admin,
  )
  return { id: account.id, name }
}

describe('domains.attach hostnames', () => {
  it('should attach www.customer-shop.test with the pebble issuer in development and take it to green', async () => {
    const hostname = 'www.customer-shop.test'
    const production = await call(
      'domains.attach',
      { siteId: world.site.siteId, hostname, issuer: 'letsencrypt' },
      world.admin,
    )
    expect(production.status, production.text).toBe(400)
    expect(production.body).toMatchObject({ issues: [{ path: 'hostname' }] })
    const previous = workerEnv.ENVIRONMENT
    workerEnv.ENVIRONMENT = 'development'
    try {
      world.doh.set(hostname, 'CNAME', [`${world.target}.`])
      const { domainId } = await ok<{ domainId: string }>(
        'domains.attach',
        { siteId: world.site.siteId, hostname, issuer: 'pebble' },
        world.admin,
      )
      await everything()
      expect(await getDomain(domainId, world.admin)).toMatchObject({
        hostname,
        issuer: 'pebble',
        driver: 'manual',
        dnsState: 'verified',
        certState: 'issued',
      })
      await ok('domains.detach', { id: domainId }, world.admin)
      await everything()
    } finally {
      workerEnv.ENVIRONMENT = previous
    }
  })
})

describe('the driver of a zone a provider account holds', () => {
  it('should use the provider_a account holding the zone, given or omitted, with no cascade default', async () => {
    const zone = zoneName('held')
    cf.addZone(zone)
    await cloudflareAccount('holder')
    const given = `given.${zone}`
    world.doh.set(given, 'CNAME', [`${world.target}.`])
    const attached = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname: given, driver: 'provider_a' },
      world.admin,
    )
    const omitted = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname: `omitted.${zone}` },
      world.admin,
    )
    expect((await getDomain(omitted.domainId, world.admin)).driver).toBe('provider_a')
    await everything()
    const green = await getDomain(attached.domainId, world.admin)
    expect(green).toMatchObject({ driver: 'provider_a', dnsState: 'verified', certState: 'issued' })
    expect(cf.records.filter((r) => r.name === given).map((r) => [r.type, r.content])).toEqual([
      ['CNAME', world.target],
    ])
  })

  it('should refuse to guess between two accounts holding the zone, naming them, until one is the default', async () => {
    const zone = zoneName('twice')
    cf.addZone(zone)
    const first = await cloudflareAccount('first')
    const second = await cloudflareAccount('second')
    for (const driver of [undefined, 'provider_a']) {
      const refused = await call(
        'domains.attach',
        { siteId: world.site.siteId, hostname: `a.${zone}`, driver },
        world.admin,
      )
      expect(refused.status, refused.text).toBe(400)
      expect(refused.body).toMatchObject({ issues: [{ path: 'driver' }] })
      expect(refused.text).toContain(first.name)
      expect(refused.text).toContain(second.name)
      expect(refused.text).toContain('accounts.setDefault')
    }
    expect(await ok('domains.list', { siteId: world.site.siteId }, world.admin)).toMatchObject({
      domains: [],
    })
    await ok(
      'accounts.setDefault',
      { scope: 'node', scopeId: world.site.nodeId, kind: 'dns', accountId: second.id },
      world.admin,
    )
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname: `a.${zone}` },
      world.admin,
    )
    expect((await getDomain(domainId, world.admin)).driver).toBe('provider_a')
  })

  it('should answer 400 naming why for a provider no account of which holds the zone', async () => {
    const refused = await call(
      'domains.attach',
      { siteId: world.site.siteId, hostname: `a.${zoneName('nobody')}`, driver: 'provider_c' },
      world.admin,
    )
    expect(refused.status, refused.text).toBe(400)
    expect(refused.body).toMatchObject({ issues: [{ path: 'driver' }] })
    expect(refused.text).toContain('no provider_c account holds a zone for')
  })
})

describe('domains.setProxied', () => {
  it('should record the flag on any driver, answer reattachToApply only for provider_a, and audit it', async () => {
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname: `p.${zoneName('proxy')}`, driver: 'manual' },
      world.admin,
    )
    expect(await ok('domains.setProxied', { id: domainId, proxied: true }, world.admin)).toEqual({
      proxied: true,
      reattachToApply: false,
    })
    expect((await getDomain(domainId, world.admin)).proxied).toBe(true)
    const audit = await ok<{ entries: { action: string; detail: unknown }[] }>(
      'audit.list',
      { action: 'domain.set-proxied', targetId: domainId },
      world.admin,
    )
    expect(audit.entries).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ proxied: true }) }),
    ])
    expect((await call('domains.setProxied', { id: 'nope', proxied: true }, world.admin)).status).toBe(404)
  })
})

describe('domains.renew after a failed renew', () => {
  it('should accept renew again from failed while the route still serves the domain', async () => {
    const hostname = `again.${zoneName('renew')}`
    const domainId = await attachGreen(world, hostname)
    const served = world.agent.certificates.get(hostname)?.serial
    const vhosts = world.agent.edge.vhosts
    world.agent.edge = { ...world.agent.edge, vhosts: [] }
    await ok('domains.renew', { id: domainId }, world.admin)
    await everything()
    const failed = await getDomain(domainId, world.admin)
    expect(failed).toMatchObject({ certState: 'failed', nextStep: null })
    expect(failed.failureRemedy).toContain('domains.renew')

    world.agent.edge = { ...world.agent.edge, vhosts }
    expect(await ok('domains.renew', { id: domainId }, world.admin)).toEqual({ renewing: true, id: domainId })
    expect((await getDomain(domainId, world.admin)).certState).toBe('renewing')
    await everything()
    const renewed = await getDomain(domainId, world.admin)
    expect(renewed).toMatchObject({ certState: 'issued', dnsState: 'verified', failureRemedy: null })
    expect(world.agent.certificates.get(hostname)?.serial).not.toBe(served)
    expect(stepsOf(renewed).slice(-2)).toEqual([
      ['renew', 'failed'],
      ['renew', 'passed'],
    ])
  })

  it('should answer 409 naming domains.attach for a failed domain whose route is gone', async () => {
    const domainId = await attachGreen(world, `gone.${zoneName('renew')}`)
    await ok('routes.remove', { id: (await getDomain(domainId, world.admin)).routeId }, world.admin)
    const refused = await call('domains.renew', { id: domainId }, world.admin)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.text).toContain('domains.attach')
  })
})

describe('domains.detach', () => {
  it('should show no green from its answer on, and let another site attach the hostname once it ends', async () => {
    const hostname = `moving.${zoneName('detach')}`
    const domainId = await attachGreen(world, hostname)
    expect(await ok('domains.detach', { id: domainId }, world.admin)).toEqual({ detached: true })
    const detaching = await getDomain(domainId, world.admin)
    expect(detaching.nextStep).toBeNull()
    expect([detaching.dnsState, detaching.certState]).not.toEqual(['verified', 'issued'])
    const listed = await ok<{ domains: { id: string; certState: string }[] }>(
      'domains.list',
      { siteId: world.site.siteId },
      world.admin,
    )
    expect(listed.domains.find((d) => d.id === domainId)?.certState).not.toBe('issued')

    const other = await siteWithToken(world.admin)
    const early = await call(
      'domains.attach',
      { siteId: other.siteId, hostname, driver: 'manual' },
      world.admin,
    )
    expect(early.status, early.text).toBe(409)
    expect(early.body).toMatchObject({ code: 'collision' })
    await everything()
    expect((await call('domains.get', { id: domainId }, world.admin)).status).toBe(404)
    const moved = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: other.siteId, hostname, driver: 'manual' },
      world.admin,
    )
    expect(moved.domainId).not.toBe(domainId)
    expect((await getDomain(moved.domainId, world.admin)).siteId).toBe(other.siteId)
  })
})

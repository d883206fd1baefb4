import { describe, expect, it } from 'vitest'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { admin, attach, sent, site, zone } from './domains/attach-fixture'
import { getDomain } from './domains/fixture'
import { call, ok } from './helpers/http'

describe('domains.attach input and errors', () => {
  it('should answer 404 for an unknown site, 400 naming the field, and write nothing', async () => {
    const unknown = await call(
      'domains.attach',
      {
        siteId: crypto.randomUUID(),
        hostname: `a.${zone}`,
      },
      admin,
    )
    expect(unknown.status, unknown.text).toBe(404)
    for (const [input, field] of [
      [{ hostname: 'Shop.Example.com' }, 'hostname'],
      [{ hostname: `a.${zone}`, driver: 'ftp' }, 'driver'],
      [{ hostname: `a.${zone}`, issuer: 'zerossl' }, 'issuer'],
      [{ hostname: 'a.not-hosted-here.com', driver: 'selfhosted' }, 'driver'],
      [{ hostname: `a.${zone}`, driver: 'manual', proxied: true }, 'proxied'],
      [{ hostname: `a.${zone}`, driver: 'provider_b' }, 'driver'],
    ] as const) {
      const result = await call('domains.attach', { siteId: site.siteId, ...input }, admin)
      expect(result.status, result.text).toBe(400)
      expect(result.body).toMatchObject({ code: 'validation_failed', issues: [{ path: field }] })
    }
    expect(await ok('domains.list', { siteId: site.siteId }, admin)).toMatchObject({ domains: [] })
    expect(sent).toEqual([])
  })

  it('should answer 409 when the site has nothing to point the hostname at', async () => {
    const bare = await siteWithToken(admin, { dnsTarget: null, publicIpv4: null })
    const result = await call('domains.attach', { siteId: bare.siteId, hostname: `a.${zone}` }, admin)
    expect(result.status, result.text).toBe(409)
    expect(await ok('domains.list', { siteId: bare.siteId }, admin)).toEqual({
      domains: [],
      nextCursor: null,
      target: null,
    })
  })

  it('should pick selfhosted for a hostname in a self-hosted zone and manual otherwise', async () => {
    const hosted = await attach({ hostname: `x.${zone}` })
    const elsewhere = await attach({ hostname: `x.${zoneName('external')}` })
    expect((await getDomain(hosted.domainId, admin)).driver).toBe('selfhosted')
    expect((await getDomain(elsewhere.domainId, admin)).driver).toBe('manual')
  })

  it('should be idempotent for the same site and hostname and audit domain.attach', async () => {
    const hostname = `same.${zone}`
    const first = await attach({ hostname })
    const queued = sent.length
    const second = await attach({ hostname })
    expect(second).toEqual(first)
    expect(sent.length).toBe(queued)
    const audit = await ok<{ entries: { action: string; targetId: string }[] }>(
      'audit.list',
      { action: 'domain.attach', targetId: first.domainId },
      admin,
    )
    expect(audit.entries).toHaveLength(2)
  })
})

describe('the shared hostname claim', () => {
  it('should refuse a hostname registered as a custom hostname, on any site', async () => {
    const hostname = `taken.${zoneName('claims')}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const other = await siteWithToken(admin)
    for (const siteId of [site.siteId, other.siteId]) {
      const result = await call('domains.attach', { siteId, hostname }, admin)
      expect(result.status, result.text).toBe(409)
      expect(result.body).toMatchObject({ code: 'collision' })
    }
  })

  it('should refuse a domain of one site to another site and to custom hostnames', async () => {
    const hostname = `mine.${zoneName('claims')}`
    await attach({ hostname })
    const other = await siteWithToken(admin)
    const domain = await call('domains.attach', { siteId: other.siteId, hostname }, admin)
    expect(domain.status, domain.text).toBe(409)
    expect(domain.body).toMatchObject({ code: 'collision' })
    const custom = await call('customHostnames.register', { siteId: other.siteId, hostname }, other.app)
    expect(custom.status, custom.text).toBe(409)
    expect(custom.body).toMatchObject({ code: 'collision' })
    const probe = await ok('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
    expect(probe).toMatchObject({ verdict: 'blocked', reason: 'collision' })
  })

  it('should keep the site from being removed while it holds a domain, naming it', async () => {
    const hostname = `held.${zoneName('claims')}`
    await attach({ hostname })
    const result = await call('sites.remove', { id: site.siteId }, admin)
    expect(result.status, result.text).toBe(409)
    expect(result.text).toContain(hostname)
  })
})

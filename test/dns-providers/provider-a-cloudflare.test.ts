import { describe, expect, it } from 'vitest'
import { dnsDriver } from '../../src/outside/dns-providers'
import { cloudflareFake } from '../fakes/provider-a-cloudflare'
import { fakeOrigin, outboundRequests } from '../helpers/outbound'
import { type Case, cases, installed, providerError } from './cases'

describe('provider_a specifics (Cloudflare)', () => {
  it('should treat a malformed token, which Cloudflare answers with 400 and code 6003, as an auth error', async () => {
    installed(cases[0] as Case)
    const error = await providerError(dnsDriver('provider_a', { token: 'too-short' }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain('6003 Invalid request headers')
    // Only a 401 may mean an account API token; a malformed one is not tried against the zone listing.
    expect(outboundRequests()).toHaveLength(1)
  })

  it('should refuse a token Cloudflare reports as disabled', async () => {
    const fake = cloudflareFake()
    fake.tokenStatus = 'disabled'
    fakeOrigin(fake.origin, fake.handle)
    const error = await providerError(dnsDriver('provider_a', { token: fake.token }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain('disabled')
  })

  it('should check an account API token, which /user/tokens/verify refuses, by listing zones and say so', async () => {
    const fake = cloudflareFake({ accountToken: true })
    fakeOrigin(fake.origin, fake.handle)
    const detail = await dnsDriver('provider_a', { token: fake.token }).verify()
    expect(detail).toContain('refused the token at GET /user/tokens/verify')
    expect(detail).toContain('checked by listing zones')
    expect(outboundRequests().map((r) => new URL(r.url).pathname)).toEqual([
      '/client/v4/user/tokens/verify',
      '/client/v4/zones',
    ])
  })

  it('should still report a wrong token as rejected after the zone listing refuses it too', async () => {
    const fake = cloudflareFake({ accountToken: true })
    fakeOrigin(fake.origin, fake.handle)
    const error = await providerError(dnsDriver('provider_a', { token: 'w'.repeat(40) }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain('rejected the token (HTTP 401: 1000 Invalid API Token)')
    expect(outboundRequests()).toHaveLength(2)
  })

  it('should not read "No route for that URI" (7000), a wrong API root, as a record already gone', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver('provider_a', { token: fake.token, apiBaseUrl: `${fake.origin}/client/v3` })
    const error = await providerError(
      driver.deleteRecord({ zoneId: zone.id, zoneName: zone.name, recordId: 'f'.repeat(32) }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('7000 No route for that URI')
  })

  it('should throw exists on "an identical record already exists" (81058) and adopt nothing', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    const theirs = fake.addRecord(zone, { type: 'TXT', name: 'example.test', content: '"v=1"', ttl: 300 })
    const driver = dnsDriver('provider_a', { token: fake.token })
    const error = await providerError(
      driver.createRecord(zone, { type: 'TXT', name: 'example.test', content: 'v=1', ttl: 300 }),
    )
    expect(error.kind).toBe('exists')
    expect(error.message).toContain('81058 An identical record already exists.')
    expect(fake.records).toEqual([theirs])
    expect(outboundRequests().map((r) => r.method)).toEqual(['POST'])
  })

  it('should pass on the refusal of a CNAME beside an A (81053) and of an A beside a CNAME (81054)', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'A', name: 'www.example.test', content: '192.0.2.1', ttl: 300 })
    fake.addRecord(zone, { type: 'CNAME', name: 'shop.example.test', content: 'them.test', ttl: 300 })
    const driver = dnsDriver('provider_a', { token: fake.token })
    const cname = await providerError(
      driver.createRecord(zone, { type: 'CNAME', name: 'www.example.test', content: 'edge.test', ttl: 300 }),
    )
    expect([cname.kind, cname.message]).toEqual(['invalid', expect.stringContaining('81053')])
    const a = await providerError(
      driver.createRecord(zone, { type: 'A', name: 'shop.example.test', content: '192.0.2.2', ttl: 300 }),
    )
    expect([a.kind, a.message]).toEqual(['invalid', expect.stringContaining('81054')])
    expect(fake.records).toHaveLength(2)
  })

  it('should refuse to proxy a TXT record without calling Cloudflare', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver('provider_a', { token: fake.token })
    const error = await providerError(
      driver.createRecord(zone, { type: 'TXT', name: 'example.test', content: 'x', ttl: 300, proxied: true }),
    )
    expect(error.kind).toBe('invalid')
    expect(outboundRequests()).toEqual([])
  })
})

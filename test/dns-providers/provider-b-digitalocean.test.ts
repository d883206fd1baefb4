import { describe, expect, it } from 'vitest'
import { dnsDriver } from '../../src/outside/dns-providers'
import { digitalOceanFake } from '../fakes/provider-b-digitalocean'
import { fakeOrigin, outboundRequests } from '../helpers/outbound'
import { type Case, cases, installed, providerError } from './cases'

describe('provider_b specifics (DigitalOcean)', () => {
  it('should pass on the refusal of a CNAME at a name that holds other records', async () => {
    const fake = installed(cases[1] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'TXT', name: 'www', content: 'theirs', ttl: 300 })
    const error = await providerError(
      dnsDriver('provider_b', { token: fake.token }).createRecord(zone, {
        type: 'CNAME',
        name: 'www.example.test',
        content: 'edge.test',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('CNAME records cannot share a name with other records')
    expect(fake.records).toHaveLength(1)
  })

  it('should accept a token scoped to DNS only, which may not read /v2/account, by listing domains', async () => {
    const fake = digitalOceanFake({ dnsOnlyScope: true })
    fakeOrigin(fake.origin, fake.handle)
    const detail = await dnsDriver('provider_b', { token: fake.token }).verify()
    expect(detail).toContain('GET /v2/domains')
    expect(outboundRequests().map((r) => new URL(r.url).pathname)).toEqual(['/v2/domains'])
  })
})

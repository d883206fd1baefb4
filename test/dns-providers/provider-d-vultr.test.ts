import { describe, expect, it } from 'vitest'
import { dnsDriver } from '../../src/outside/dns-providers'
import { vultrFake } from '../fakes/provider-d-vultr'
import { fakeOrigin, outboundRequests } from '../helpers/outbound'
import { type Case, cases, installed, providerError } from './cases'

describe('provider_d specifics (Vultr)', () => {
  it('should refuse TXT data holding a double quote, which Vultr cannot take, without calling it', async () => {
    const fake = installed(cases[3] as Case)
    const zone = fake.addZone('example.test')
    const error = await providerError(
      dnsDriver('provider_d', { token: fake.token }).createRecord(zone, {
        type: 'TXT',
        name: 'example.test',
        content: 'say "hi"',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(outboundRequests()).toEqual([])
  })

  it('should carry the Retry-After of a 503 (maintenance) as well as of a 429', async () => {
    const fake = vultrFake()
    fakeOrigin(fake.origin, fake.handle)
    fake.outageRetryAfter = 60
    const error = await providerError(dnsDriver('provider_d', { token: fake.token }).listZones())
    expect(error.kind).toBe('unavailable')
    expect(error.retryAfterSeconds).toBe(60)
    expect(error.message).toContain(
      'failed to answer (HTTP 503: Service temporarily unavailable.); retry after 60 s',
    )
  })
})

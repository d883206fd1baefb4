import { describe, expect, it } from 'vitest'
import { dnsDriver } from '../../src/outside/dns-providers'
import { hetznerFake } from '../fakes/provider-c-hetzner'
import { fakeOrigin, outboundRequests } from '../helpers/outbound'
import { type Case, cases, installed, providerError } from './cases'

describe('provider_c specifics (Hetzner Cloud)', () => {
  const cloudToken = 'a'.repeat(64)

  it('should read a CNAME target without its final dot as relative to the zone', async () => {
    const fake = installed(cases[2] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'CNAME', name: 'www', content: 'Web', ttl: 300 })
    const driver = dnsDriver('provider_c', { token: fake.token })
    expect(await driver.listRecords(zone, 'www.example.test')).toEqual([
      {
        recordId: 'www/CNAME/Web',
        type: 'CNAME',
        name: 'www.example.test',
        content: 'web.example.test',
        ttl: 300,
      },
    ])
  })

  it('should wait for a record action to finish before answering', async () => {
    const fake = hetznerFake()
    fakeOrigin(fake.origin, fake.handle)
    fake.actionPolls = 2
    const zone = fake.addZone('example.test')
    const ref = await dnsDriver('provider_c', { token: fake.token }).createRecord(zone, {
      type: 'A',
      name: 'example.test',
      content: '192.0.2.1',
      ttl: 300,
    })
    expect(ref.recordId).toBe('@/A/192.0.2.1')
    expect(fake.records).toHaveLength(1)
    expect(outboundRequests().map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      `POST /v1/zones/${zone.id}/rrsets/@/A/actions/add_records`,
      'GET /v1/actions/1',
      'GET /v1/actions/1',
    ])
  })

  it('should report an action that ends in error as a refused change', async () => {
    const fake = hetznerFake()
    fakeOrigin(fake.origin, fake.handle)
    fake.failNextAction = 'Action failed'
    const zone = fake.addZone('example.test')
    const error = await providerError(
      dnsDriver('provider_c', { token: fake.token }).createRecord(zone, {
        type: 'TXT',
        name: 'example.test',
        content: 'x',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('could not apply the change (action 1: Action failed)')
    expect(fake.records).toEqual([])
  })

  it('should tell the operator to create a Hetzner Cloud API token when an old DNS-console token is refused', async () => {
    installed(cases[2] as Case)
    const old = await providerError(dnsDriver('provider_c', { token: 'b'.repeat(32) }).verify())
    expect(old.kind).toBe('auth')
    expect(old.message).toContain('rejected the token (HTTP 401: unable to authenticate (unauthorized))')
    expect(old.message).toContain('create an API token with Read & Write permission in the Hetzner Console')
    const revoked = await providerError(dnsDriver('provider_c', { token: cloudToken }).verify())
    expect(revoked.kind).toBe('auth')
    expect(revoked.message).not.toContain('Hetzner Console')
  })
})

import { describe, expect, it } from 'vitest'
import { dnsDriver } from '../../src/outside/dns-providers'
import { linodeFake } from '../fakes/provider-e-linode'
import { fakeOrigin } from '../helpers/outbound'
import { type Case, cases, installed, providerError } from './cases'

describe('provider_e specifics (Linode)', () => {
  it('should pass on the refusal of a second CNAME at one name', async () => {
    const fake = installed(cases[4] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'CNAME', name: 'www', content: 'them.test', ttl: 300 })
    const error = await providerError(
      dnsDriver('provider_e', { token: fake.token }).createRecord(zone, {
        type: 'CNAME',
        name: 'www.example.test',
        content: 'edge.test',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('name: Record conflict - CNAMES must be unique')
    expect(fake.records).toHaveLength(1)
  })

  it('should leave out slave domains, which take no records through the API', async () => {
    const fake = linodeFake({ slaveZones: ['secondary.test'] })
    fakeOrigin(fake.origin, fake.handle)
    fake.addZone('primary.test')
    const zones = await dnsDriver('provider_e', { token: fake.token }).listZones()
    expect(zones.map((zone) => zone.name)).toEqual(['primary.test'])
  })
})

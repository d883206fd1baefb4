import { describe, expect, it } from 'vitest'
import { dnsDriver } from '../../src/outside/dns-providers'
import { cases } from './cases'

describe('DNS driver capabilities', () => {
  it('should give proxying to provider_a only and say how each keys its zones', () => {
    const capabilities = cases.map((c) => [c.provider, dnsDriver(c.provider, { token: 't' }).capabilities])
    expect(Object.fromEntries(capabilities)).toEqual({
      provider_a: { proxy: true, delete: true, zoneKey: 'id' },
      provider_b: { proxy: false, delete: true, zoneKey: 'name' },
      provider_c: { proxy: false, delete: true, zoneKey: 'id' },
      provider_d: { proxy: false, delete: true, zoneKey: 'name' },
      provider_e: { proxy: false, delete: true, zoneKey: 'id' },
    })
  })
})

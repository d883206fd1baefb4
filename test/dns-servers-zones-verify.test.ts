import { describe, expect, it } from 'vitest'
import { admin, newZone } from './dns-servers/zones-fixture'
import { FakeDoh } from './fakes/doh'
import { call, ok } from './helpers/http'

describe('dnsServers.zones.verifyDelegation and verifyDs', () => {
  it('should pass when the parent delegates to exactly our nameservers, and explain a mismatch', async () => {
    const zone = await newZone('deleg')
    const doh = new FakeDoh().install()
    doh.set(zone.name, 'NS', ['ns2.zones-panel.test.', 'NS1.zones-panel.test.'])
    const passed = await ok<{ detail: string }>('dnsServers.zones.verifyDelegation', { id: zone.id }, admin)
    expect(passed).toEqual({
      ok: true,
      expected: ['ns1.zones-panel.test', 'ns2.zones-panel.test'],
      found: ['ns1.zones-panel.test', 'ns2.zones-panel.test'],
      detail: expect.stringContaining('they are equal'),
    })
    // The resolver sees the zone's own NS set once delegated; the detail must not claim it read the registrar.
    expect(passed.detail).toContain(`the NS set a recursive resolver returns for ${zone.name}`)
    expect(passed.detail).toContain("not the registrar's list")
    doh.set(zone.name, 'NS', ['ns1.zones-panel.test.', 'ns.parked.test.'])
    const mismatch = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDelegation',
      { id: zone.id },
      admin,
    )
    expect(mismatch.ok).toBe(false)
    expect(mismatch.detail).toContain('missing ns2.zones-panel.test; unexpected ns.parked.test')
    doh.set(zone.name, 'NS', [], 3)
    const missing = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDelegation',
      { id: zone.id },
      admin,
    )
    expect(missing).toMatchObject({ ok: false, found: [] })
    expect(missing.detail).toContain('NXDOMAIN')
    doh.httpStatus = 503
    const down = await call('dnsServers.zones.verifyDelegation', { id: zone.id }, admin)
    expect(down.status, down.text).toBe(502)
  })

  it('should pass when the parent publishes our DS, and fail on a stale or a missing one', async () => {
    const zone = await newZone('verifyds')
    const doh = new FakeDoh().install()
    expect(await ok('dnsServers.zones.verifyDs', { id: zone.id }, admin)).toMatchObject({
      ok: true,
      expected: [],
    })
    doh.set(zone.name, 'DS', ['12345 13 2 ABCDEF'])
    const unsigned = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDs',
      { id: zone.id },
      admin,
    )
    expect(unsigned.ok).toBe(false)
    expect(unsigned.detail).toContain('unsigned but the parent publishes DS')

    await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: true }, admin)
    const ds = await ok<{ ds: { keyTag: number; algorithm: number; digestType: number; digest: string }[] }>(
      'dnsServers.zones.getDsRecord',
      { id: zone.id },
      admin,
    )
    const sha256 = ds.ds.find((d) => d.digestType === 2)
    doh.set(zone.name, 'DS', [`${sha256?.keyTag} 13 2 ${sha256?.digest.toUpperCase()}`])
    const good = await ok<{ ok: boolean; found: string[] }>(
      'dnsServers.zones.verifyDs',
      { id: zone.id },
      admin,
    )
    expect(good.ok).toBe(true)
    expect(good.found).toEqual([`${sha256?.keyTag} 13 2 ${sha256?.digest}`])
    doh.set(zone.name, 'DS', ['12345 13 2 abcdef'])
    expect(await ok('dnsServers.zones.verifyDs', { id: zone.id }, admin)).toMatchObject({ ok: false })
    doh.set(zone.name, 'DS', [])
    const none = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDs',
      { id: zone.id },
      admin,
    )
    expect(none.ok).toBe(false)
    expect(none.detail).toContain('enter one at the registrar')
  })
})

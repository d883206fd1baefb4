import { describe, expect, it } from 'vitest'
import { runZoneSync } from './dns-servers/run-job'
import { admin, boxA, boxB, boxStates, newZone, type Zone } from './dns-servers/zones-fixture'
import { dsFor } from './fakes/dnssec'
import { call, ok } from './helpers/http'

describe('dnsServers.zones DNSSEC', () => {
  it('should hand out the DS of the key both boxes sign with, and 409 while unsigned', async () => {
    const zone = await newZone('ds')
    expect((await call('dnsServers.zones.getDsRecord', { id: zone.id }, admin)).status).toBe(409)
    await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: true }, admin)
    const [keyA] = boxA.lookup(zone.name, 'DNSKEY')
    expect(boxB.lookup(zone.name, 'DNSKEY')).toEqual([keyA])
    const ds = await ok<{ dnskeys: string[]; ds: { keyTag: number; digestType: number; digest: string }[] }>(
      'dnsServers.zones.getDsRecord',
      { id: zone.id },
      admin,
    )
    expect(ds.dnskeys).toEqual([keyA])
    const expected = await dsFor(zone.name, keyA ?? '', 4)
    const sha384 = ds.ds.find((d) => d.digestType === 4)
    expect(`${sha384?.keyTag} 13 4 ${sha384?.digest}`).toBe(expected)
    const listed = await ok<Zone[]>('dnsServers.zones.list', {}, admin)
    expect(listed.find((z) => z.id === zone.id)?.dnssec).toBe(true)
  })

  it('should copy the signing key to a box that was down when signing was turned on', async () => {
    const zone = await newZone('keycopy')
    boxB.down = true
    const result = await ok<{ boxes: { written: boolean; state: string }[] }>(
      'dnsServers.zones.setDnssec',
      { id: zone.id, enabled: true },
      admin,
    )
    expect(result.boxes.map((b) => [b.written, b.state])).toEqual([
      [true, 'synced'],
      [false, 'failed'],
    ])
    expect(boxB.zones.get(`${zone.name}.`)?.keys).toEqual([])
    boxB.down = false
    const nodeB = zone.boxes[1]?.nodeId ?? 'no second box'
    expect(await runZoneSync(zone.id, nodeB)).toEqual({ acked: true, retryDelay: null })
    const [keyA] = boxA.lookup(zone.name, 'DNSKEY')
    expect(keyA).toMatch(/^257 3 13 /)
    expect(boxB.lookup(zone.name, 'DNSKEY')).toEqual([keyA])
    expect(await boxStates(zone)).toEqual(['synced', 'synced'])
  })
})

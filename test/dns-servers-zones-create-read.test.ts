import { describe, expect, it } from 'vitest'
import { admin, boxA, boxB, newZone, type Zone, type ZoneDetail } from './dns-servers/zones-fixture'
import { call, ok } from './helpers/http'

describe('dnsServers.zones.create', () => {
  it('should answer 400 for a bad name and 409 for a zone that exists', async () => {
    for (const name of ['Bad Name', 'com', '*.wild.test', 'a..b.test']) {
      const response = await call('dnsServers.zones.create', { name }, admin)
      expect(response.status, response.text).toBe(400)
      expect(response.body, name).toMatchObject({ issues: [{ path: 'name' }] })
    }
    const zone = await newZone()
    const again = await call('dnsServers.zones.create', { name: zone.name }, admin)
    expect(again.status, again.text).toBe(409)
  })

  it('should answer 502 and record nothing when no box takes the zone', async () => {
    boxA.down = true
    boxB.down = true
    const name = `nowhere-${crypto.randomUUID().slice(0, 8)}.test`
    const response = await call('dnsServers.zones.create', { name }, admin)
    expect(response.status, response.text).toBe(502)
    const zones = await ok<Zone[]>('dnsServers.zones.list', {}, admin)
    expect(zones.map((z) => z.name)).not.toContain(name)
  })

  it('should adopt a zone a box already holds and let the job reconcile it', async () => {
    const name = `adopted-${crypto.randomUUID().slice(0, 8)}.test`
    await boxB.handle(
      new Request(`${boxB.apiUrl}/api/v1/servers/localhost/zones`, {
        method: 'POST',
        headers: { 'x-api-key': boxB.apiKey },
        body: JSON.stringify({ name: `${name}.`, kind: 'Native', nameservers: [] }),
      }),
    )
    const zone = await ok<Zone>('dnsServers.zones.create', { name }, admin)
    expect(zone.boxes.map((b) => b.state)).toEqual(['synced', 'pending'])
  })
})

describe('dnsServers.zones.get and list', () => {
  it('should read records live and say so when no box answers', async () => {
    const zone = await newZone('live')
    const detail = await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(detail.recordsFrom).toBe(zone.boxes[0]?.nodeId)
    expect(detail.records?.map((r) => r.type)).toEqual(['NS', 'SOA'])
    expect(detail.records?.find((r) => r.type === 'NS')?.values).toEqual([
      'ns1.zones-panel.test',
      'ns2.zones-panel.test',
    ])
    boxA.down = true
    boxB.down = true
    const dark = await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(dark).toMatchObject({ records: null, recordsFrom: null })
    expect(dark.recordsError).toContain('did not answer')
    expect((await call('dnsServers.zones.get', { id: 'missing' }, admin)).status).toBe(404)
    const listed = await ok<Zone[]>('dnsServers.zones.list', {}, admin)
    expect(listed.find((z) => z.id === zone.id)).toMatchObject({ name: zone.name, dnssec: false })
  })
})

import { describe, expect, it } from 'vitest'
import { runZoneSync } from './dns-servers/run-job'
import {
  admin,
  boxA,
  boxB,
  boxStates,
  isCryptokeysRead,
  newZone,
  sent,
  upsertA,
  zoneWithBoxBehind,
} from './dns-servers/zones-fixture'
import { call, ok } from './helpers/http'

describe('dnsServers.zones sync state', () => {
  it('should not call a box synced when a write misses it between its job comparing and finishing', async () => {
    const { zone, nodeB } = await zoneWithBoxBehind('race')
    let raced = false
    // The job's last read of the source is its DNSKEY set; the write lands right after that answer.
    boxA.afterAnswer = async (request) => {
      if (raced || !isCryptokeysRead(request)) return
      raced = true
      boxB.refuse = (r) => r.method === 'PATCH'
      await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'second', '192.0.2.2'), admin)
      boxB.refuse = null
    }
    expect(await runZoneSync(zone.id, nodeB)).toEqual({ acked: false, retryDelay: expect.any(Number) })
    expect(raced).toBe(true)
    expect(await boxStates(zone)).toEqual(['synced', 'failed'])
    expect(boxB.lookup(`second.${zone.name}`, 'A')).toEqual([])
    expect(await runZoneSync(zone.id, nodeB, 2)).toEqual({ acked: true, retryDelay: null })
    expect(boxB.lookup(`second.${zone.name}`, 'A')).toEqual(['192.0.2.2'])
    expect(await boxStates(zone)).toEqual(['synced', 'synced'])
  })

  it('should not undo a setDnssec that lands while a job copies the unsigned zone', async () => {
    const { zone, nodeB } = await zoneWithBoxBehind('signrace')
    let raced = false
    // The job's first request to the source reads the zone; signing is turned on right after.
    boxA.afterAnswer = async (request) => {
      if (raced || request.method !== 'GET') return
      raced = true
      await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: true }, admin)
    }
    expect(await runZoneSync(zone.id, nodeB)).toEqual({ acked: false, retryDelay: expect.any(Number) })
    expect(raced).toBe(true)
    expect(await boxStates(zone)).toEqual(['synced', 'failed'])
    expect(await runZoneSync(zone.id, nodeB, 2)).toEqual({ acked: true, retryDelay: null })
    const [keyA] = boxA.lookup(zone.name, 'DNSKEY')
    expect(keyA).toMatch(/^257 3 13 /)
    expect(boxB.lookup(zone.name, 'DNSKEY')).toEqual([keyA])
  })

  it('should start one job chain for a box that stays down across several writes', async () => {
    const zone = await newZone('chain')
    boxB.down = true
    await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'one', '192.0.2.1'), admin)
    await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'two', '192.0.2.2'), admin)
    await ok('dnsServers.zones.deleteRecord', { id: zone.id, name: `one.${zone.name}`, type: 'A' }, admin)
    const jobs = sent.filter((job) => job.body.type === 'dns.zone-sync' && job.body.zoneId === zone.id)
    expect(jobs).toEqual([
      { body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: zone.boxes[1]?.nodeId }, delaySeconds: 30 },
    ])
    expect(await boxStates(zone)).toEqual(['synced', 'failed'])
  })

  it('should sync back at once a box that was behind and applied a write no up-to-date box took', async () => {
    const zone = await newZone('behindonly')
    const keep = `keep.${zone.name}`
    await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'keep', '192.0.2.4'), admin)
    boxB.down = true
    await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'first', '192.0.2.1'), admin)
    boxB.down = false
    const nodeB = zone.boxes[1]?.nodeId ?? 'no second box'
    sent.length = 0
    boxA.down = true
    // A delete needs no read first, so it reaches the boxes: only B, which is behind, takes it.
    const response = await call(
      'dnsServers.zones.deleteRecord',
      { id: zone.id, name: keep, type: 'A' },
      admin,
    )
    expect(response.status, response.text).toBe(502)
    expect(response.text).toContain('ns1.zones-panel.test: PowerDNS at')
    expect(response.text).toContain('ns2.zones-panel.test applied it')
    expect(boxB.lookup(keep, 'A')).toEqual([])
    expect(sent).toEqual([
      { body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: nodeB }, delaySeconds: 0 },
    ])
    boxA.down = false
    expect(await boxStates(zone)).toEqual(['synced', 'failed'])
    expect(await runZoneSync(zone.id, nodeB)).toEqual({ acked: true, retryDelay: null })
    expect(boxB.lookup(keep, 'A')).toEqual(['192.0.2.4'])
  })
})

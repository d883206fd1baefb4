import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken, zoneName } from '../custom-hostnames/fixture'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { type Caller, call, ok } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { control, enrollPeerBoxes, peers } from './peers'

// Custom hostnames in a self-hosted zone on the real PowerDNS boxes: the apex beside the zone's own SOA and NS,
// a record someone else made left alone, and a re-plan that leaves nothing on the old target.

const dig = (box: number, name: string, type: string) =>
  control<string[]>('GET', `/dig?${new URLSearchParams({ box: String(box), name, type })}`)
const onEveryBox = async (name: string, type: string) =>
  Promise.all(peers.boxes.map((_, index) => dig(index, name, type)))

describe('custom hostnames on real PowerDNS', () => {
  let admin: Caller
  let site: SiteFixture
  let zone: { id: string; name: string }
  let sent: SentJob[] = []

  beforeAll(async () => {
    admin = await adminSession()
    await enrollPeerBoxes(admin, 'hostnames')
  })

  beforeEach(async () => {
    sent = captureJobs()
    site = await siteWithToken(admin)
    zone = await ok('dnsServers.zones.create', { name: zoneName('peer-hostnames') }, admin)
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone.name] }, admin)
  })

  const status = (hostname: string) =>
    call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)

  it('should take the zone apex to active beside its SOA and NS, and remove only its A record', async () => {
    await ok('customHostnames.register', { siteId: site.siteId, hostname: zone.name }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(zone.name)).body).toMatchObject({ state: 'active' })
    expect(await onEveryBox(zone.name, 'A')).toEqual(peers.boxes.map(() => ['203.0.113.10']))
    await ok('customHostnames.remove', { siteId: site.siteId, hostname: zone.name }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(zone.name)).status).toBe(404)
    expect(await onEveryBox(zone.name, 'A')).toEqual(peers.boxes.map(() => []))
    for (const soa of await onEveryBox(zone.name, 'SOA')) expect(soa).toHaveLength(1)
  })

  it('should hand out instructions naming a record someone else made at the name, and leave it as it was', async () => {
    const hostname = `taken.${zone.name}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      admin,
    )
    const inTheWay = [{ type: 'A', name: hostname, value: '198.51.100.1' }]
    expect(await ok('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'foreign-records',
      inTheWay,
    })
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'instructions',
      reason: 'foreign-records',
      inTheWay,
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removed',
    })
    expect(await onEveryBox(hostname, 'A')).toEqual(peers.boxes.map(() => ['198.51.100.1']))
    expect(await onEveryBox(hostname, 'CNAME')).toEqual(peers.boxes.map(() => []))
  })

  it("should move a live hostname's record to the node's new target and leave nothing on the old one", async () => {
    const hostname = `moving.${zone.name}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    await ok('nodes.update', { id: site.nodeId, dnsTarget: 'edge-moved.example.net' }, admin)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).body).toMatchObject({ state: 'active' })
    expect(await onEveryBox(hostname, 'CNAME')).toEqual(peers.boxes.map(() => ['edge-moved.example.net.']))
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await onEveryBox(hostname, 'CNAME')).toEqual(peers.boxes.map(() => []))
  })
})

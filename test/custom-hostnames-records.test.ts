import { beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { hostedZones } from './custom-hostnames/hosted-zone'
import type { SentJob } from './dns-servers/run-job'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'

// Every record the panel writes for a custom hostname is tracked from before the write, so whatever the queue
// redelivers, loses or interleaves, remove ends with none of them left, and nothing it did not write is touched.

interface Status {
  state: string
  records: { type: string; name: string; value: string }[]
  failureRemedy?: string
}

const hosted = hostedZones('ledger')
const { boxes } = hosted
const [boxA] = boxes
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let zone: string

beforeEach(async () => {
  ;({ admin, sent, site, zone } = await hosted.fresh())
})

const status = (hostname: string) =>
  call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const shown = (hostname: string) =>
  ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)

async function zoneIdOf(name: string): Promise<string> {
  const zones = await ok<{ id: string; name: string }[]>('dnsServers.zones.list', {}, admin)
  const found = zones.find((z) => z.name === name)
  if (!found) throw new Error(`no zone ${name}`)
  return found.id
}

function everywhere(name: string, type: string): string[][] {
  return boxes.map((box) => box.lookup(name, type))
}

describe('custom hostnames in a self-hosted zone: tracked records', () => {
  it('should recognise its own write after the answers were lost on both boxes, and delete it on remove', async () => {
    const hostname = `lost.${zone}`
    let dropped = 0
    for (const box of boxes)
      box.afterAnswer = async (request) => {
        if (request.method === 'PATCH' && dropped < 2) {
          dropped++
          throw new TypeError('network error: connection reset after the change was applied')
        }
      }
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(dropped).toBe(2)
    expect((await status(hostname)).body).toMatchObject({ state: 'active' })
    expect(everywhere(hostname, 'CNAME').every((values) => values.length === 1)).toBe(true)
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removing',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).status).toBe(404)
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })

  it('should delete what a write in flight lands when remove comes during the PATCH', async () => {
    const hostname = `racing.${zone}`
    let removed: { status: number; body: unknown } | null = null
    boxA.afterAnswer = async (request) => {
      if (request.method === 'PATCH' && !removed)
        removed = await call('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    }
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(removed).toMatchObject({ status: 200, body: { state: 'removing' } })
    expect((await status(hostname)).status).toBe(404)
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
    // The claim went with the last record: another site may have the name now.
    const other = await siteWithToken(admin)
    const elsewhere = await call('customHostnames.register', { siteId: other.siteId, hostname }, other.app)
    expect(elsewhere.status, elsewhere.text).toBe(200)
  })

  it('should plan A records at the apex of a self-hosted zone, go active beside its SOA and NS, and remove only the A', async () => {
    const probe = await ok<{ verdict: string; records: Status['records'] }>(
      'customHostnames.probe',
      { siteId: site.siteId, hostname: zone },
      site.app,
    )
    expect(probe).toMatchObject({
      verdict: 'auto',
      records: [{ type: 'A', name: zone, value: '203.0.113.10' }],
    })
    await ok('customHostnames.register', { siteId: site.siteId, hostname: zone }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(zone)).body).toMatchObject({ state: 'active' })
    expect(everywhere(zone, 'A')).toEqual([['203.0.113.10'], ['203.0.113.10']])
    await ok('customHostnames.remove', { siteId: site.siteId, hostname: zone }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(everywhere(zone, 'A')).toEqual([[], []])
    expect(boxA.lookup(zone, 'SOA')).toHaveLength(1)
    expect(boxA.lookup(zone, 'NS').length).toBeGreaterThan(0)
  })

  it('should count an identical record someone else made as present, and never delete it', async () => {
    const hostname = `same.${zone}`
    const plan = await ok<{ records: Status['records'] }>(
      'customHostnames.probe',
      { siteId: site.siteId, hostname },
      site.app,
    )
    const target = plan.records[0]?.value ?? ''
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: await zoneIdOf(zone), name: hostname, type: 'CNAME', ttl: 300, values: [target] },
      admin,
    )
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).body).toMatchObject({ state: 'active' })
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).status).toBe(404)
    expect(everywhere(hostname, 'CNAME')).toEqual([[`${target}.`], [`${target}.`]])
  })

  it('should answer probe and register instructions foreign-records naming the record, and write nothing', async () => {
    const hostname = `taken.${zone}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: await zoneIdOf(zone), name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      admin,
    )
    const inTheWay = [{ type: 'A', name: hostname, value: '198.51.100.1' }]
    const probe = await ok('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
    expect(probe).toMatchObject({
      verdict: 'instructions',
      reason: 'foreign-records',
      tier: 'hosted',
      inTheWay,
    })
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'instructions',
      reason: 'foreign-records',
      inTheWay,
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(everywhere(hostname, 'A')).toEqual([['198.51.100.1'], ['198.51.100.1']])
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
    // A row that wrote nothing goes at once, and leaves the record alone.
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removed',
    })
    expect((await status(hostname)).status).toBe(404)
    expect(everywhere(hostname, 'A')).toEqual([['198.51.100.1'], ['198.51.100.1']])
  })
})

describe('one plan', () => {
  it("should re-plan and rewrite a live hostname's records when its node's DNS target changes, leaving nothing on the old one", async () => {
    const hostname = `moving.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    const [before] = everywhere(hostname, 'CNAME')
    const target = `edge-new.${crypto.randomUUID().slice(0, 8)}.example.net`
    await ok('nodes.update', { id: site.nodeId, dnsTarget: target }, admin)
    const probe = await ok<{ records: Status['records'] }>(
      'customHostnames.probe',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(probe.records).toEqual([expect.objectContaining({ type: 'CNAME', value: target })])
    await drainJobs(sent, 'custom-hostname.replan')
    expect((await status(hostname)).body).toMatchObject({
      state: 'pending',
      records: [{ type: 'CNAME', name: hostname, value: target }],
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).body).toMatchObject({ state: 'active' })
    expect(everywhere(hostname, 'CNAME')).toEqual([[`${target}.`], [`${target}.`]])
    expect(before).not.toEqual([`${target}.`])
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })

  it('should answer re-register of a live row with the current plan when the node moved before the re-plan ran', async () => {
    const hostname = `again.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    await ok('nodes.update', { id: site.nodeId, dnsTarget: 'edge-other.example.net' }, admin)
    const again = await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    expect(again).toMatchObject({
      state: 'pending',
      records: [{ type: 'CNAME', name: hostname, value: 'edge-other.example.net' }],
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(everywhere(hostname, 'CNAME')).toEqual([['edge-other.example.net.'], ['edge-other.example.net.']])
  })
})

describe('failures that say so', () => {
  it('should drop a removal-manual row once a later remove finds the records gone', async () => {
    const hostname = `manual.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    for (const box of boxes)
      box.answer = (request) =>
        request.method === 'PATCH'
          ? Response.json({ error: 'RRset stuck: delete refused' }, { status: 422 })
          : null
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    const manual = await shown(hostname)
    expect(manual.state).toBe('removal-manual')
    expect(manual.failureRemedy).toMatch(/Delete these records in the zone .* by hand: CNAME/)
    expect(manual.failureRemedy).toMatch(/call remove again/)
    for (const box of boxes) box.answer = null
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removing',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).status).toBe(404)
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })
})

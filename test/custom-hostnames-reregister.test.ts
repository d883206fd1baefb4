import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { db } from '../src/db/client'
import { customHostnameRecords, customHostnames } from '../src/db/schema/custom-hostnames'
import type { Env } from '../src/env'
import type { JobMessage } from '../src/jobs/messages'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { hostedZones } from './custom-hostnames/hosted-zone'
import type { SentJob } from './dns-servers/run-job'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'

// Register answers 409 only for a collision: a removal still running, records in the way and a node with nothing
// to point at are each answered in band, and registering again once the cause is gone proceeds.

const database = db((env as unknown as Env).DB)
const hosted = hostedZones('again')
const { boxes } = hosted
const [boxA] = boxes
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let zone: string
let zoneId: string

beforeEach(async () => {
  ;({ admin, sent, site, zone, zoneId } = await hosted.fresh())
})

const register = (hostname: string, on: SiteFixture = site) =>
  call('customHostnames.register', { siteId: on.siteId, hostname }, on.app)
const state = async (hostname: string) =>
  (await ok<{ state: string }>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).state
const everywhere = (name: string, type: string) => boxes.map((box) => box.lookup(name, type))
const jobsOf = (type: JobMessage['type']) =>
  sent.filter((job) => job.body.type === type).map((job) => job.body)

async function ledger(hostname: string) {
  const [row] = await database.select().from(customHostnames).where(eq(customHostnames.hostname, hostname))
  if (!row) return []
  return database.select().from(customHostnameRecords).where(eq(customHostnameRecords.ownerId, row.id))
}

describe('register of a hostname whose removal is still running', () => {
  it('should answer pending, not 409, and register again once the deletions finished, whatever the queue redelivers', async () => {
    const hostname = `back.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const firstWrite = jobsOf('custom-hostname.write')[0]
    await drainJobs(sent, 'custom-hostname.')
    expect(await state(hostname)).toBe('active')
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    const again = await register(hostname)
    expect(again.status, again.text).toBe(200)
    expect(again.body).toMatchObject({ state: 'pending', records: [{ type: 'CNAME', name: hostname }] })
    expect(await state(hostname)).toBe('pending')
    const removeJob = jobsOf('custom-hostname.remove')[0]
    if (!removeJob || !firstWrite) throw new Error('the remove or the first write was not queued')
    await drainJobs(sent, 'custom-hostname.')
    expect(await state(hostname)).toBe('active')
    // A redelivered remove and a redelivered write of the first registration change nothing now.
    expect((await runJob(removeJob, 2)).acked).toBe(true)
    expect((await runJob(firstWrite, 2)).acked).toBe(true)
    await drainJobs(sent, 'custom-hostname.')
    expect(await state(hostname)).toBe('active')
    const target = (again.body as { records: { value: string }[] }).records[0]?.value
    expect(everywhere(hostname, 'CNAME')).toEqual([[`${target}.`], [`${target}.`]])
    expect(await ledger(hostname)).toEqual([expect.objectContaining({ type: 'CNAME', state: 'written' })])
    // Tracked: a later remove deletes it and the name is free.
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
    expect((await register(hostname, await siteWithToken(admin))).status).toBe(200)
  })

  it('should not delete the new registration when the remove job was mid-way as register came', async () => {
    const hostname = `midway.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    let registered: { status: number; body: unknown } | null = null
    boxA.afterAnswer = async (request) => {
      if (request.method === 'PATCH' && !registered) registered = await register(hostname)
    }
    await drainJobs(sent, 'custom-hostname.')
    expect(registered).toMatchObject({ status: 200, body: { state: 'pending' } })
    expect(await state(hostname)).toBe('active')
    expect(everywhere(hostname, 'CNAME').map((values) => values.length)).toEqual([1, 1])
    expect(await ledger(hostname)).toHaveLength(1)
  })

  it('should let a remove after such a register win: the row goes', async () => {
    const hostname = `changed-mind.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    expect((await register(hostname)).status).toBe(200)
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removing',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).status).toBe(
      404,
    )
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })
})

describe('records in the way', () => {
  it('should answer probe and register instructions foreign-records naming them, write nothing, and proceed once they are gone', async () => {
    const hostname = `taken.${zone}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zoneId, name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
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
    const registered = await register(hostname)
    expect(registered.status, registered.text).toBe(200)
    expect(registered.body).toMatchObject({
      state: 'instructions',
      reason: 'foreign-records',
      inTheWay,
      records: (probe as { records: unknown }).records,
    })
    expect(jobsOf('custom-hostname.write')).toEqual([])
    expect(await state(hostname)).toBe('instructions')
    // The row exists now; probe still says what is in the way.
    expect(await ok('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'foreign-records',
      registered: true,
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
    await ok('dnsServers.zones.deleteRecord', { id: zoneId, name: hostname, type: 'A' }, admin)
    const proceeding = await register(hostname)
    expect(proceeding.body).toMatchObject({ state: 'pending' })
    expect(proceeding.body).not.toHaveProperty('inTheWay')
    await drainJobs(sent, 'custom-hostname.')
    expect(await state(hostname)).toBe('active')
    expect(everywhere(hostname, 'CNAME').map((values) => values.length)).toEqual([1, 1])
    expect(everywhere(hostname, 'A')).toEqual([[], []])
  })
})

describe('a node with nothing to point at', () => {
  it('should answer probe and register instructions site_has_no_target with no records, and proceed once the operator sets a target', async () => {
    const bare = await siteWithToken(admin, { dnsTarget: null, publicIpv4: null, publicIpv6: null })
    await ok('customHostnames.settings.set', { siteId: bare.siteId, allowedZones: [zone] }, admin)
    const input = { siteId: bare.siteId, hostname: `bare.${zone}` }
    expect(await ok('customHostnames.probe', input, bare.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'site_has_no_target',
      records: [],
    })
    const registered = await call('customHostnames.register', input, bare.app)
    expect(registered.status, registered.text).toBe(200)
    expect(registered.body).toMatchObject({
      state: 'instructions',
      reason: 'site_has_no_target',
      records: [],
    })
    expect(jobsOf('custom-hostname.write')).toEqual([])
    await ok('nodes.update', { id: bare.nodeId, dnsTarget: 'edge-set.example.net' }, admin)
    const again = await ok('customHostnames.register', input, bare.app)
    expect(again).toMatchObject({
      state: 'pending',
      records: [{ type: 'CNAME', name: input.hostname, value: 'edge-set.example.net' }],
    })
    await drainJobs(sent, 'custom-hostname.')
    expect((await ok<{ state: string }>('customHostnames.status', input, bare.app)).state).toBe('active')
    expect(everywhere(input.hostname, 'CNAME')).toEqual([
      ['edge-set.example.net.'],
      ['edge-set.example.net.'],
    ])
  })
})

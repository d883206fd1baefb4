import { describe, expect, it } from 'vitest'
import { siteWithToken } from './custom-hostnames/fixture'
import {
  admin,
  allowList,
  boxA,
  boxB,
  boxes,
  type Registration,
  type Status,
  sent,
  site,
  zone,
  zoneId,
} from './custom-hostnames/registration-fixture'
import { call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'

describe('customHostnames.register in a hosted zone', () => {
  it('should write the CNAME to every box, turn active, and remove exactly that record', async () => {
    await allowList([zone])
    const hostname = `shop.${zone}`
    const registered = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(registered).toMatchObject({ hostname, tier: 'hosted', state: 'pending' })
    expect(registered.reason).toBeUndefined()
    await drainJobs(sent, 'custom-hostname.')
    const target = registered.records[0]?.value
    expect(boxA.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    expect(boxB.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status).toMatchObject({ state: 'active', tier: 'hosted', cert: { issued: false } })
    expect(status.failureRemedy).toBeUndefined()

    const again = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(again).toMatchObject({ id: registered.id, state: 'active', records: registered.records })

    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removing',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(boxA.lookup(hostname, 'CNAME')).toEqual([])
    const gone = await call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(gone.status, gone.text).toBe(404)
  })

  it('should give instructions when the zone is not allow-listed and write nothing', async () => {
    const hostname = `www.${zone}`
    const registered = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(registered).toMatchObject({
      state: 'instructions',
      reason: 'zone-not-allow-listed',
      tier: 'hosted',
    })
    expect(sent.map((job) => job.body.type)).toEqual(['route.reconcile'])
    expect(boxA.lookup(hostname, 'CNAME')).toEqual([])
    // Allow-listing later and registering again starts the write.
    await allowList([zone])
    const again = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(again).toMatchObject({ id: registered.id, state: 'pending' })
    await drainJobs(sent, 'custom-hostname.')
    expect(boxA.lookup(hostname, 'CNAME')).toHaveLength(1)
  })

  it('should remove an instructions row at once and free the hostname', async () => {
    const hostname = 'portal.customer-owned.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    expect(await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)).toEqual({
      state: 'removed',
    })
    expect(await ok('customHostnames.list', { siteId: site.siteId }, site.app)).toEqual({
      hostnames: [],
      nextCursor: null,
    })
    const other = await siteWithToken(admin)
    const elsewhere = await call('customHostnames.register', { siteId: other.siteId, hostname }, other.app)
    expect(elsewhere.status, elsewhere.text).toBe(200)
  })

  it('should fail with the box error when no box takes the write, after the retries', async () => {
    await allowList([zone])
    const hostname = `down.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    boxA.down = true
    boxB.down = true
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status.state).toBe('failed')
    expect(status.failureRemedy).toContain(`CNAME ${hostname}`)
    expect(status.failureRemedy).toContain("the zone's DNS servers did not answer")
    // The box's own words are for operators; the app's token reads only what it can act on.
    expect(status.failureRemedy).not.toMatch(/connection refused|PowerDNS|127\.0\.0\.1|box/)
    const seenByAdmin = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, admin)
    expect(seenByAdmin.failureRemedy).toMatch(/Operator detail: .*connection refused/)
    // Registering again once the boxes are back tries again.
    boxA.down = false
    boxB.down = false
    expect(await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'pending',
    })
    await drainJobs(sent, 'custom-hostname.')
    expect(await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'active',
    })
  })

  it('should land on removal-manual naming the records when the boxes refuse the delete', async () => {
    await allowList([zone])
    const hostname = `stuck.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    for (const box of boxes)
      box.answer = (request) =>
        request.method === 'PATCH'
          ? Response.json({ error: 'RRset stuck: delete refused' }, { status: 422 })
          : null
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status.state).toBe('removal-manual')
    expect(status.failureRemedy).toContain(`CNAME ${hostname}`)
    expect(status.failureRemedy).not.toMatch(/delete refused/)
    const seenByAdmin = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, admin)
    expect(seenByAdmin.failureRemedy).toMatch(/Operator detail: .*delete refused/)
  })

  it('should not replace records the panel did not create that appeared at the name after register', async () => {
    await allowList([zone])
    const hostname = `taken.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: await zoneId(zone), name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      admin,
    )
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status.state).toBe('failed')
    expect(status.failureRemedy).toMatch(/did not create/)
    expect(boxA.lookup(hostname, 'A')).toEqual(['198.51.100.1'])
  })
})

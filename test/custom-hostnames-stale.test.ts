import { beforeEach, describe, expect, it } from 'vitest'
import { customHostnameStaleSweepTask } from '../src/custom-hostnames/stale-sweep-cron'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { hostedZones } from './custom-hostnames/hosted-zone'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { runCron } from './helpers/changelog'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs, runJob } from './helpers/jobs'
import { deliverOps, type OpsInbox, type OpsNotification, opsInbox } from './helpers/notifications'
import { adminSession, operatorSession } from './helpers/principals'

// Hostnames that never complete: with the site's removeStaleAfterDays set, a row whose records never appeared is
// named to the operational notifications a day before it goes, then removed through the remove path, audited.

const DAY = 24 * 60 * 60 * 1000
let admin: Caller
let sent: SentJob[]
let doh: FakeDoh
let inbox: OpsInbox
let site: SiteFixture
let zone: string

type Notification = OpsNotification & {
  customHostnames?: { id: string; siteId: string; hostname: string; metadata: unknown }[]
}

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  doh = new FakeDoh().install()
  inbox = await opsInbox(admin)
  site = await siteWithToken(admin)
  zone = zoneName('stale')
})

const setStale = (siteId: string, removeStaleAfterDays: number | null, caller = admin) =>
  call<Record<string, unknown>>(
    'customHostnames.settings.set',
    { siteId, allowedZones: [], removeStaleAfterDays },
    caller,
  )
const register = (hostname: string, on = site, metadata?: Record<string, string>) =>
  ok<{ id: string }>(
    'customHostnames.register',
    { siteId: on.siteId, hostname, ...(metadata ? { metadata } : {}) },
    on.app,
  )
const statusOf = (hostname: string, on = site) =>
  call<{ state: string; dns: { resolves: boolean } }>(
    'customHostnames.status',
    { siteId: on.siteId, hostname },
    on.app,
  )
// Through the Worker's scheduled handler, as Cron Triggers run it.
const sweep = (at: number) => runCron(customHostnameStaleSweepTask.schedule, at)
const notifications = async () => (await deliverOps(sent, inbox)) as Notification[]
const staleAudits = async () =>
  (
    await ok<{
      entries: {
        action: string
        targetId: string
        principal: { kind: string }
        detail: Record<string, unknown>
      }[]
    }>('audit.list', { action: 'custom-hostname.remove-stale' }, admin)
  ).entries

describe('the removeStaleAfterDays setting', () => {
  it('should be off by default, take 2 to 365 days, keep it when absent and turn off with null', async () => {
    const get = () =>
      ok<{ removeStaleAfterDays: number | null }>(
        'customHostnames.settings.get',
        { siteId: site.siteId },
        admin,
      )
    expect((await get()).removeStaleAfterDays).toBeNull()
    expect((await setStale(site.siteId, 7)).body).toMatchObject({ removeStaleAfterDays: 7 })
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [] }, admin)
    expect((await get()).removeStaleAfterDays).toBe(7)
    for (const bad of [1, 366, 2.5, '7', 0, -3]) {
      const refused = await call(
        'customHostnames.settings.set',
        { siteId: site.siteId, allowedZones: [], removeStaleAfterDays: bad },
        admin,
      )
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({
        issues: [expect.objectContaining({ path: 'removeStaleAfterDays' })],
      })
    }
    expect((await get()).removeStaleAfterDays).toBe(7)
    expect((await setStale(site.siteId, null)).body).toMatchObject({ removeStaleAfterDays: null })
    expect((await get()).removeStaleAfterDays).toBeNull()
  })

  it('should be set only with settings:edit (an operator and a site token get 403) and audited', async () => {
    const operator = await operatorSession(admin)
    expect((await setStale(site.siteId, 7, operator)).status).toBe(403)
    expect((await setStale(site.siteId, 7, site.app)).status).toBe(403)
    expect((await call('customHostnames.settings.get', { siteId: site.siteId }, site.app)).status).toBe(403)
    expect(
      (
        await ok<{ removeStaleAfterDays: number | null }>(
          'customHostnames.settings.get',
          { siteId: site.siteId },
          operator,
        )
      ).removeStaleAfterDays,
    ).toBeNull()
    await setStale(site.siteId, 9)
    const audit = await ok<{ entries: { detail: Record<string, unknown> }[] }>(
      'audit.list',
      { action: 'custom-hostname.settings-set', targetId: site.siteId },
      admin,
    )
    expect(audit.entries[0]?.detail).toMatchObject({ removeStaleAfterDays: 9 })
  })
})

describe('the stale sweep', () => {
  it('should name only the opted-in site’s never-resolved rows a day ahead, then remove them, audited, and spare the rest', async () => {
    const other = await siteWithToken(admin)
    const started = Date.now()
    const stale = `stale.${zone}`
    const resolving = `resolving.${zone}`
    const resolved = `resolved.${zone}`
    const foreign = `foreign.${zoneName('other')}`
    await register(stale, site, { customerId: 'cus_stale' })
    const resolvingRow = await register(resolving)
    const resolvedRow = await register(resolved)
    await register(foreign, other)
    // The customer of `resolved` created its record and the app polled: its records appeared.
    const target = (
      await ok<{ cnameTarget: string }>(
        'customHostnames.probe',
        { siteId: site.siteId, hostname: resolved },
        site.app,
      )
    ).cnameTarget
    doh.set(resolved, 'CNAME', [`${target}.`])
    expect((await statusOf(resolved)).body.dns.resolves).toBe(true)
    doh.set(resolved, 'CNAME', [])
    await setStale(site.siteId, 7)
    await setStale(other.siteId, null)
    await notifications()

    // Six days and a bit: nothing is old enough.
    await sweep(started + 5 * DAY)
    expect(await notifications()).toEqual([])
    // `resolving`'s customer created the record since: the sweep's own lookup sees it and spares the row.
    doh.set(resolving, 'CNAME', [`${target}.`])
    await sweep(started + 6 * DAY + 60_000)
    const [notice, ...more] = await notifications()
    expect(more).toEqual([])
    const staleRow = (
      await ok<{ hostnames: { id: string; hostname: string }[] }>(
        'customHostnames.list',
        { siteId: site.siteId },
        site.app,
      )
    ).hostnames.find((row) => row.hostname === stale)
    expect(notice).toMatchObject({
      event: 'operational.raised',
      kind: 'custom-hostname.stale',
      subject: expect.stringContaining('1 custom hostname'),
      detail: expect.stringContaining(stale),
      customHostnames: [
        { id: staleRow?.id, siteId: site.siteId, hostname: stale, metadata: { customerId: 'cus_stale' } },
      ],
    })
    expect(notice?.detail).not.toContain(resolving)
    expect((await statusOf(resolving)).body.dns.resolves).toBe(true)
    expect(resolvingRow.id).toBeTruthy()

    // Less than a day after the notice: still there.
    await sweep(started + 6 * DAY + 12 * 60 * 60_000)
    expect((await statusOf(stale)).status).toBe(200)
    expect((await staleAudits()).map((entry) => entry.detail.hostname)).not.toContain(stale)

    await sweep(started + 7 * DAY + 2 * 60_000)
    expect((await statusOf(stale)).status).toBe(404)
    for (const kept of [resolving, resolved]) expect((await statusOf(kept)).status).toBe(200)
    expect((await statusOf(foreign, other)).status).toBe(200)
    expect(resolvedRow.id).toBeTruthy()
    const audits = await staleAudits()
    expect(audits.filter((entry) => entry.detail.siteId === site.siteId)).toEqual([
      expect.objectContaining({
        targetId: staleRow?.id,
        principal: expect.objectContaining({ kind: 'system' }),
        detail: expect.objectContaining({
          hostname: stale,
          siteId: site.siteId,
          state: 'removed',
          removeStaleAfterDays: 7,
        }),
      }),
    ])
    const routes = await ok<{ hostname: string; status: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes.find((route) => route.hostname === stale)?.status).toBe('removed')
    // The notice's episode ends with its hostnames gone.
    expect(await notifications()).toEqual([
      expect.objectContaining({ event: 'operational.resolved', key: notice?.key }),
    ])
  })

  it('should remove nothing twice when a run is retried or two runs overlap, and announce once', async () => {
    const started = Date.now()
    const names = [`a.${zone}`, `b.${zone}`, `c.${zone}`]
    for (const name of names) await register(name)
    await setStale(site.siteId, 3)
    await notifications()
    const noticeAt = started + 2 * DAY + 60_000
    await Promise.all([sweep(noticeAt), sweep(noticeAt)])
    await sweep(noticeAt)
    const announced = await notifications()
    expect(announced).toHaveLength(1)
    expect(announced[0]?.customHostnames?.map((row) => row.hostname).sort()).toEqual(names)
    const removeAt = started + 3 * DAY + 2 * 60_000
    await Promise.all([sweep(removeAt), sweep(removeAt)])
    await sweep(removeAt)
    for (const name of names) expect((await statusOf(name)).status).toBe(404)
    const audits = await staleAudits()
    expect(audits.filter((entry) => names.includes(String(entry.detail.hostname)))).toHaveLength(3)
  })

  it('should keep a row whose app registers it again after the notice, and one whose lookup fails at removal', async () => {
    const started = Date.now()
    const again = `again.${zone}`
    const unknown = `unknown.${zone}`
    await register(again)
    await register(unknown)
    await setStale(site.siteId, 2)
    await sweep(started + DAY + 60_000)
    expect((await notifications())[0]?.customHostnames?.map((row) => row.hostname).sort()).toEqual([
      again,
      unknown,
    ])
    await register(again)
    doh.httpStatus = 503
    await sweep(started + 2 * DAY + 2 * 60_000)
    expect((await statusOf(unknown)).status).toBe(200)
    doh.httpStatus = null
    expect((await statusOf(again)).status).toBe(200)
    const audited = (await staleAudits()).map((entry) => entry.detail.hostname)
    expect(audited).not.toContain(again)
    expect(audited).not.toContain(unknown)
  })
})

describe('a stale hosted row', () => {
  const hosted = hostedZones('stale')

  it('should turn removing, and its removal job delete the records the panel wrote', async () => {
    const world = await hosted.fresh()
    await drainJobs(world.sent, 'dns.')
    const started = Date.now()
    const hostname = `pending.${world.zone}`
    const on = world.site
    await ok('customHostnames.register', { siteId: on.siteId, hostname }, on.app)
    // One try of the write while a box is down: the row stays pending, its records not in place everywhere.
    hosted.boxes[1].down = true
    const writes = world.sent.filter((job) => job.body.type === 'custom-hostname.write')
    world.sent.splice(0, world.sent.length, ...world.sent.filter((job) => !writes.includes(job)))
    for (const job of writes) await runJob(job.body)
    hosted.boxes[1].down = false
    expect((await statusOf(hostname, on)).body.state).toBe('pending')
    await ok(
      'customHostnames.settings.set',
      { siteId: on.siteId, allowedZones: [world.zone], removeStaleAfterDays: 2 },
      world.admin,
    )
    await sweep(started + DAY + 60_000)
    await sweep(started + 2 * DAY + 2 * 60_000)
    expect((await statusOf(hostname, on)).body.state).toBe('removing')
    await drainJobs(world.sent, 'custom-hostname.')
    await drainJobs(world.sent, 'dns.')
    expect((await statusOf(hostname, on)).status).toBe(404)
    for (const box of hosted.boxes) expect(box.lookup(hostname, 'CNAME')).toEqual([])
  })
})

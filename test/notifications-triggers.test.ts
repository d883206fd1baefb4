import { beforeEach, describe, expect, it } from 'vitest'
import { OUT_OF_SYNC_ALERT_MS } from '../src/dns-servers/sync/out-of-sync-cron'
import { verifyServiceSignature } from '../src/lib/service-signature'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakePowerDns } from './fakes/powerdns'
import { runCron } from './helpers/changelog'
import { type Caller, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { deliverOps, OPS_SECRET, type OpsInbox, opsInbox } from './helpers/notifications'
import { adminSession } from './helpers/principals'

// Each trigger raises exactly one operational notification and clears it: a custom hostname turning failed or
// removal-manual, and a nameserver box out of sync for 10 minutes.

const boxes = [
  new FakePowerDns('https://pdns-a.ops.test', 'ops-key-a'),
  new FakePowerDns('https://pdns-b.ops.test', 'ops-key-b'),
]
const boxB = boxes[1] as FakePowerDns
const MINUTE = 60_000
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let zone: string
let nodeIds: string[] = []
let inbox: OpsInbox

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  sent = captureJobs()
  admin = await adminSession()
  if (nodeIds.length === 0) nodeIds = await enrollBoxes(admin, 'ops', boxes)
  site = await siteWithToken(admin)
  zone = zoneName('ops')
  await ok('dnsServers.zones.create', { name: zone }, admin)
  await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone] }, admin)
  inbox = await opsInbox(admin)
})

async function zoneIdOf(name: string): Promise<string> {
  const zones = await ok<{ id: string; name: string }[]>('dnsServers.zones.list', {}, admin)
  const found = zones.find((z) => z.name === name)
  if (!found) throw new Error(`no zone ${name}`)
  return found.id
}

describe('custom hostname notifications', () => {
  it('should notify once when a hostname turns failed, and send the all-clear once it is removed', async () => {
    const hostname = `taken.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    // A record that appears before the write fails the row (one there at register is answered in band).
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: await zoneIdOf(zone), name: hostname, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      admin,
    )
    await drainJobs(sent, 'custom-hostname.')
    const [failed, ...more] = await deliverOps(sent, inbox)
    expect(more).toEqual([])
    expect(failed).toMatchObject({
      event: 'operational.raised',
      kind: 'custom-hostname.failed',
      subject: `Custom hostname ${hostname} failed`,
      detail: expect.stringContaining(`A ${hostname} → 198.51.100.1`),
      link: `https://panel.test/sites/${site.siteId}`,
    })
    const hit = inbox.hooks.at(-1)
    expect(hit && (await verifyServiceSignature(hit.body, hit.headers, OPS_SECRET))).toEqual({ ok: true })
    expect(inbox.email).toHaveBeenCalledTimes(1)
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await deliverOps(sent, inbox)).toEqual([
      expect.objectContaining({ event: 'operational.resolved', key: failed?.key }),
    ])
  })

  it('should notify a removal-manual hostname, and clear it when a later remove ends it', async () => {
    const hostname = `manual.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await deliverOps(sent, inbox)).toEqual([])
    for (const box of boxes)
      box.answer = (request) =>
        request.method === 'PATCH'
          ? Response.json({ error: 'RRset stuck: delete refused' }, { status: 422 })
          : null
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    const [manual, ...more] = await deliverOps(sent, inbox)
    expect(more).toEqual([])
    expect(manual).toMatchObject({
      kind: 'custom-hostname.removal-manual',
      subject: `Custom hostname ${hostname} needs its records removed by hand`,
      detail: expect.stringMatching(/Delete these records in the zone .* by hand: CNAME/),
    })
    for (const box of boxes) box.answer = null
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await deliverOps(sent, inbox)).toEqual([
      expect.objectContaining({ event: 'operational.resolved', key: manual?.key }),
    ])
  })
})

describe('nameserver box out of sync', () => {
  it('should notify once after 10 minutes out of sync, not before, and clear when the box is back', async () => {
    boxB.down = true
    await ok('dnsServers.zones.create', { name: zoneName('behind') }, admin)
    const start = (Math.floor(Date.now() / MINUTE) + 1) * MINUTE
    const boxKey = `nameserver:${nodeIds[1]}`
    const mine = async () => (await deliverOps(sent, inbox)).filter((n) => n.key === boxKey)
    for (let at = start; at < start + OUT_OF_SYNC_ALERT_MS; at += MINUTE) {
      await runCron('* * * * *', at)
      expect(await mine()).toEqual([])
    }
    await runCron('* * * * *', start + OUT_OF_SYNC_ALERT_MS)
    const [behind, ...more] = await mine()
    expect(more).toEqual([])
    expect(behind).toMatchObject({
      event: 'operational.raised',
      kind: 'nameserver.out-of-sync',
      subject: 'Nameserver ns2.ops-panel.test is out of sync',
      detail: expect.stringContaining(`since ${new Date(start).toISOString()}`),
      link: 'https://panel.test/dns/nameservers',
    })
    await runCron('* * * * *', start + OUT_OF_SYNC_ALERT_MS + MINUTE)
    expect(await mine()).toEqual([])
    boxB.down = false
    await drainJobs(sent, 'dns.zone-sync')
    await runCron('* * * * *', start + OUT_OF_SYNC_ALERT_MS + 2 * MINUTE)
    expect(await mine()).toEqual([expect.objectContaining({ event: 'operational.resolved', key: boxKey })])
  })
})

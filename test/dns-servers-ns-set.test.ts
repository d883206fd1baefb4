import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { captureJobs, runZoneSync, type SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// One story in order, on a database of its own: which boxes a zone's NS set names as boxes come and go.

interface Zone {
  id: string
  name: string
  boxes: { nodeId: string; state: string }[]
}

const AGENT_SECRET = 'agent-secret-0123456789'
const boxA = new FakePowerDns('https://pdns-a.ns-set.test', 'ns-set-key-a')
const boxB = new FakePowerDns('https://pdns-b.ns-set.test', 'ns-set-key-b')
const agentC = new FakeNodeAgent('https://agent-c.ns-set.test', AGENT_SECRET, 'https://pdns-c.ns-set.test')
const NS_A = 'ns-a.ns-set-panel.test'
const NS_B = 'ns-b.ns-set-panel.test'
const NS_C = 'ns-c.ns-set-panel.test'
const NS_D = 'ns-d.ns-set-panel.test'

let admin: Caller
let sent: SentJob[]
const ids: Record<'a' | 'b' | 'c' | 'd', string> = { a: '', b: '', c: '', d: '' }
let zone: Zone

beforeEach(async () => {
  boxA.reset().install()
  boxB.reset().install()
  agentC.install()
  agentC.powerDns?.reset().install()
  sent = captureJobs()
  admin = await adminSession()
})

function enrollInput(label: string, hostname: string, powerDns?: FakePowerDns) {
  return {
    name: `ns-set-${label}`,
    hostname,
    publicIpv4: '192.0.2.10',
    agentUrl: `https://agent-${label}.ns-set.test`,
    agentSecret: AGENT_SECRET,
    ...(powerDns ? { powerDns: { apiUrl: powerDns.apiUrl, apiKey: powerDns.apiKey } } : {}),
  }
}

function servedNs(box: FakePowerDns): string[] {
  return box.lookup(zone.name, 'NS').sort()
}

async function expectedDelegation(): Promise<string[]> {
  new FakeDoh().install().set(zone.name, 'NS', [`${NS_A}.`])
  return (await ok<{ expected: string[] }>('dnsServers.zones.verifyDelegation', { id: zone.id }, admin))
    .expected
}

function boxC(): FakePowerDns {
  if (!agentC.powerDns) throw new Error('the agent installed no PowerDNS')
  return agentC.powerDns
}

function syncJobsFor(nodeId: string): SentJob[] {
  return sent.filter((job) => job.body.type === 'dns.zone-sync' && job.body.nodeId === nodeId)
}

describe("a zone's NS set", () => {
  it('should name only the boxes with PowerDNS at creation', async () => {
    ids.a = (
      await ok<{ id: string }>('dnsServers.nameservers.enroll', enrollInput('a', NS_A, boxA), admin)
    ).id
    ids.c = (await ok<{ id: string }>('dnsServers.nameservers.enroll', enrollInput('c', NS_C), admin)).id
    zone = await ok<Zone>('dnsServers.zones.create', { name: 'story.ns-set.test' }, admin)
    expect(zone.boxes.map((b) => b.nodeId)).toEqual([ids.a])
    expect(servedNs(boxA)).toEqual([`${NS_A}.`])
    expect(await expectedDelegation()).toEqual([NS_A])
  })

  it('should gain a box enrolled with PowerDNS on every box, the new one through its job', async () => {
    ids.b = (
      await ok<{ id: string }>('dnsServers.nameservers.enroll', enrollInput('b', NS_B, boxB), admin)
    ).id
    expect(servedNs(boxA)).toEqual([`${NS_A}.`, `${NS_B}.`])
    expect(await expectedDelegation()).toEqual([NS_A, NS_B])
    expect(syncJobsFor(ids.b)).toHaveLength(1)
    expect(await runZoneSync(zone.id, ids.b)).toEqual({ acked: true, retryDelay: null })
    expect(servedNs(boxB)).toEqual([`${NS_A}.`, `${NS_B}.`])
  })

  it('should gain a box once its agent installs PowerDNS', async () => {
    await ok('dnsServers.nameservers.installPowerDns', { id: ids.c }, admin)
    const all = [`${NS_A}.`, `${NS_B}.`, `${NS_C}.`]
    expect(servedNs(boxA)).toEqual(all)
    expect(servedNs(boxB)).toEqual(all)
    expect(await runZoneSync(zone.id, ids.c)).toEqual({ acked: true, retryDelay: null })
    expect(servedNs(boxC())).toEqual(all)
    expect(await expectedDelegation()).toEqual([NS_A, NS_B, NS_C])
  })

  it('should lose a removed box, and a box down meanwhile should catch up through its job', async () => {
    boxA.down = true
    expect(await ok('dnsServers.nameservers.remove', { id: ids.b }, admin)).toEqual({ removed: true })
    expect(servedNs(boxC())).toEqual([`${NS_A}.`, `${NS_C}.`])
    expect(servedNs(boxA)).toEqual([`${NS_A}.`, `${NS_B}.`, `${NS_C}.`])
    expect(syncJobsFor(ids.a)).toEqual([
      { body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: ids.a }, delaySeconds: 30 },
    ])
    boxA.down = false
    expect(await runZoneSync(zone.id, ids.a)).toEqual({ acked: true, retryDelay: null })
    expect(servedNs(boxA)).toEqual([`${NS_A}.`, `${NS_C}.`])
    expect(await expectedDelegation()).toEqual([NS_A, NS_C])
    const after = await ok<Zone>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(after.boxes.map((b) => b.state)).toEqual(['synced', 'synced'])
  })

  it('should redo an NS change that every box missed, one box becoming the reference', async () => {
    const boxD = new FakePowerDns('https://pdns-d.ns-set.test', 'ns-set-key-d').install()
    boxA.down = true
    boxC().down = true
    ids.d = (
      await ok<{ id: string }>('dnsServers.nameservers.enroll', enrollInput('d', NS_D, boxD), admin)
    ).id
    expect(syncJobsFor(ids.a)).toEqual([
      { body: { type: 'dns.zone-sync', zoneId: zone.id, nodeId: ids.a }, delaySeconds: 30 },
    ])
    expect(syncJobsFor(ids.c)).toHaveLength(1)
    boxA.down = false
    boxC().down = false
    // No box is synced, but both still hold the zone's records: the first job readies its box as the reference.
    expect(await runZoneSync(zone.id, ids.a)).toEqual({ acked: true, retryDelay: null })
    const all = [`${NS_A}.`, `${NS_C}.`, `${NS_D}.`]
    expect(servedNs(boxA)).toEqual(all)
    expect(await runZoneSync(zone.id, ids.c)).toEqual({ acked: true, retryDelay: null })
    expect(await runZoneSync(zone.id, ids.d)).toEqual({ acked: true, retryDelay: null })
    expect(servedNs(boxC())).toEqual(all)
    expect(servedNs(boxD)).toEqual(all)
    const after = await ok<Zone>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(after.boxes.map((b) => b.state)).toEqual(['synced', 'synced', 'synced'])
  })

  it('should refuse to remove the only box serving a zone, naming the zone', async () => {
    expect(await ok('dnsServers.nameservers.remove', { id: ids.c }, admin)).toEqual({ removed: true })
    expect(await ok('dnsServers.nameservers.remove', { id: ids.d }, admin)).toEqual({ removed: true })
    const response = await call('dnsServers.nameservers.remove', { id: ids.a }, admin)
    expect(response.status, response.text).toBe(409)
    expect(response.text).toContain(`the only one serving ${zone.name}`)
    expect(servedNs(boxA)).toEqual([`${NS_A}.`])
  })

  it('should never start a zone empty on a box when no box holds it any more', async () => {
    const late = new FakePowerDns('https://pdns-late.ns-set.test', 'ns-set-key-late').install()
    const lateId = (
      await ok<{ id: string }>(
        'dnsServers.nameservers.enroll',
        enrollInput('late', 'ns-late.ns-set-panel.test', late),
        admin,
      )
    ).id
    // As if the zone's last box had been removed, the way the panel once allowed.
    await env.DB.prepare('DELETE FROM zone_box_sync WHERE zone_id = ? AND node_id = ?')
      .bind(zone.id, ids.a)
      .run()
    expect(await runZoneSync(zone.id, lateId)).toEqual({ acked: false, retryDelay: expect.any(Number) })
    expect(late.zones.has(`${zone.name}.`)).toBe(false)
    const after = await ok<{ boxes: { state: string; lastError: string | null }[] }>(
      'dnsServers.zones.get',
      { id: zone.id },
      admin,
    )
    expect(after.boxes).toMatchObject([{ state: 'failed', lastError: 'no synced box to copy from' }])
  })
})

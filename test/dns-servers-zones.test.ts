import { beforeEach, describe, expect, it } from 'vitest'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, runZoneSync, type SentJob } from './dns-servers/run-job'
import { dsFor } from './fakes/dnssec'
import { FakeDoh } from './fakes/doh'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call, ok, send } from './helpers/http'
import { outboundRequests } from './helpers/outbound'
import { adminSession, operatorSession } from './helpers/principals'

interface ZoneBox {
  nodeId: string
  state: string
  lastError: string | null
}
interface Zone {
  id: string
  name: string
  dnssec: boolean
  boxes: ZoneBox[]
}
interface RecordSet {
  name: string
  type: string
  ttl: number
  values: string[]
}
interface ZoneDetail extends Zone {
  records: RecordSet[] | null
  recordsFrom: string | null
  recordsError: string | null
}

const boxes = [
  new FakePowerDns('https://pdns-a.zones.test', 'zones-key-a'),
  new FakePowerDns('https://pdns-b.zones.test', 'zones-key-b'),
]
const [boxA, boxB] = boxes as [FakePowerDns, FakePowerDns]
let admin: Caller
let sent: SentJob[]
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'zones', boxes)
    enrolled = true
  }
})

async function newZone(label = 'zone'): Promise<Zone> {
  return ok<Zone>(
    'dnsServers.zones.create',
    { name: `${label}-${crypto.randomUUID().slice(0, 8)}.test` },
    admin,
  )
}

async function records(zone: Zone): Promise<RecordSet[]> {
  const detail = await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)
  return detail.records ?? []
}

function upsertA(zone: Zone, label: string, address: string) {
  return { id: zone.id, name: `${label}.${zone.name}`, type: 'A', ttl: 60, values: [address] }
}

/** A zone whose second box missed a write and is failed. */
async function zoneWithBoxBehind(label: string): Promise<{ zone: Zone; nodeB: string }> {
  const zone = await newZone(label)
  boxB.down = true
  await ok('dnsServers.zones.upsertRecord', upsertA(zone, 'first', '192.0.2.1'), admin)
  boxB.down = false
  return { zone, nodeB: zone.boxes[1]?.nodeId ?? 'no second box' }
}

async function boxStates(zone: Zone): Promise<string[]> {
  return (await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)).boxes.map((b) => b.state)
}

function isCryptokeysRead(request: Request): boolean {
  return request.method === 'GET' && new URL(request.url).pathname.endsWith('/cryptokeys')
}

function patches(): number {
  return outboundRequests().filter((r) => r.method === 'PATCH').length
}

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

describe('dnsServers.zones.upsertRecord validation', () => {
  it('should answer 400 naming the field and write nothing to any box', async () => {
    const zone = await newZone('invalid')
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: `www.${zone.name}`, type: 'A', ttl: 60, values: ['192.0.2.1'] },
      admin,
    )
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: `alias.${zone.name}`, type: 'CNAME', ttl: 60, values: ['www.example.test'] },
      admin,
    )
    const base = { id: zone.id, name: `host.${zone.name}`, type: 'A', ttl: 300, values: ['192.0.2.1'] }
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, values: ['192.0.2'] }, 'values.0'],
      [{ ...base, values: ['192.0.2.1', '2001:db8::1'] }, 'values.1'],
      [{ ...base, type: 'AAAA', values: ['192.0.2.1'] }, 'values.0'],
      [{ ...base, type: 'MX', values: ['mail.example.test'] }, 'values.0'],
      [{ ...base, type: 'MX', values: ['70000 mail.example.test'] }, 'values.0'],
      [{ ...base, type: 'MX', values: ['10 not a host'] }, 'values.0'],
      [{ ...base, type: 'CNAME', name: zone.name, values: ['x.example.test'] }, 'name'],
      [{ ...base, type: 'CNAME', values: ['a.example.test', 'b.example.test'] }, 'values'],
      [{ ...base, type: 'CNAME', name: `www.${zone.name}`, values: ['x.example.test'] }, 'type'],
      [{ ...base, name: `alias.${zone.name}` }, 'type'],
      [{ ...base, type: 'TXT', values: [''] }, 'values.0'],
      [{ ...base, type: 'TXT', values: ['snow ☃'] }, 'values.0'],
      [{ ...base, values: ['192.0.2.1', '192.0.2.1'] }, 'values.1'],
      [{ ...base, values: [] }, 'values'],
      [{ ...base, name: 'www.elsewhere.test' }, 'name'],
      [{ ...base, name: `bad name.${zone.name}` }, 'name'],
      [{ ...base, name: `a.*.${zone.name}` }, 'name'],
      [{ ...base, ttl: 59 }, 'ttl'],
      [{ ...base, ttl: 86_401 }, 'ttl'],
      [{ ...base, ttl: 300.5 }, 'ttl'],
      [{ ...base, type: 'SRV' }, 'type'],
      [{ ...base, proxied: true }, 'proxied'],
    ]
    const before = patches()
    for (const [input, path] of cases) {
      const response = await call('dnsServers.zones.upsertRecord', input, admin)
      expect(response.status, `${path}: ${response.text}`).toBe(400)
      expect(response.body, JSON.stringify(input)).toMatchObject({ issues: [{ path }] })
    }
    expect(patches()).toBe(before)
    expect(boxA.lookup(`host.${zone.name}`, 'A')).toEqual([])
  })

  it('should answer 404 for an unknown zone', async () => {
    const response = await call(
      'dnsServers.zones.upsertRecord',
      { id: 'nope', name: 'a.b.test', type: 'A', ttl: 60, values: ['192.0.2.1'] },
      admin,
    )
    expect(response.status, response.text).toBe(404)
  })
})

describe('dnsServers.zones.upsertRecord', () => {
  it('should replace only the named set, keeping other types at the same name', async () => {
    const zone = await newZone('replace')
    const name = `app.${zone.name}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name, type: 'TXT', ttl: 60, values: ['keep me'] },
      admin,
    )
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name, type: 'A', ttl: 60, values: ['192.0.2.1', '192.0.2.2'] },
      admin,
    )
    const result = await ok<{ record: RecordSet; boxes: { written: boolean; state: string }[] }>(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: `APP.${zone.name}.`, type: 'A', ttl: 600, values: ['192.0.2.3'] },
      admin,
    )
    expect(result.record).toEqual({ name, type: 'A', ttl: 600, values: ['192.0.2.3'] })
    expect(result.boxes.map((b) => [b.written, b.state])).toEqual([
      [true, 'synced'],
      [true, 'synced'],
    ])
    const served = (await records(zone)).filter((r) => r.name === name)
    expect(served).toEqual([
      { name, type: 'A', ttl: 600, values: ['192.0.2.3'] },
      { name, type: 'TXT', ttl: 60, values: ['keep me'] },
    ])
    expect(boxB.lookup(name, 'A')).toEqual(['192.0.2.3'])
  })

  it('should split a long TXT value into 255-character strings and read it back whole', async () => {
    const zone = await newZone('long')
    const value = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: `k._domainkey.${zone.name}`, type: 'TXT', ttl: 60, values: [value] },
      admin,
    )
    const [content] = boxA.lookup(`k._domainkey.${zone.name}`, 'TXT')
    expect(content).toBe(`"${value.slice(0, 255)}" "${value.slice(255)}"`)
    expect((await records(zone)).find((r) => r.type === 'TXT')?.values).toEqual([value])
  })

  it('should answer 502 and record nothing when no box takes the write', async () => {
    const zone = await newZone('alldown')
    boxA.down = true
    boxB.down = true
    const response = await call(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: `x.${zone.name}`, type: 'A', ttl: 60, values: ['192.0.2.9'] },
      admin,
    )
    expect(response.status, response.text).toBe(502)
    expect(response.text).toContain('did not answer')
    boxA.down = false
    boxB.down = false
    const detail = await ok<ZoneDetail>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(detail.boxes.map((b) => b.state)).toEqual(['synced', 'synced'])
    const audit = await ok<{ entries: { action: string }[] }>('audit.list', { targetId: zone.id }, admin)
    expect(audit.entries.map((e) => e.action)).toEqual(['zone.create'])
  })

  it('should rectify a signed zone after each change', async () => {
    const zone = await newZone('rectify')
    await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: true }, admin)
    const before = boxA.zones.get(`${zone.name}.`)?.rectified ?? 0
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name: zone.name, type: 'A', ttl: 60, values: ['192.0.2.4'] },
      admin,
    )
    expect(boxA.zones.get(`${zone.name}.`)?.rectified).toBe(before + 1)
  })
})

describe('dnsServers.zones.deleteRecord', () => {
  it('should answer 400 for a name outside the zone and succeed on an absent set', async () => {
    const zone = await newZone('del')
    const outside = await call(
      'dnsServers.zones.deleteRecord',
      { id: zone.id, name: 'x.other.test', type: 'A' },
      admin,
    )
    expect(outside.status, outside.text).toBe(400)
    expect(outside.body).toMatchObject({ issues: [{ path: 'name' }] })
    const absent = await ok<{ record: null }>(
      'dnsServers.zones.deleteRecord',
      { id: zone.id, name: `none.${zone.name}`, type: 'MX' },
      admin,
    )
    expect(absent.record).toBeNull()
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

describe('dnsServers.zones.verifyDelegation and verifyDs', () => {
  it('should pass when the parent delegates to exactly our nameservers, and explain a mismatch', async () => {
    const zone = await newZone('deleg')
    const doh = new FakeDoh().install()
    doh.set(zone.name, 'NS', ['ns2.zones-panel.test.', 'NS1.zones-panel.test.'])
    const passed = await ok<{ detail: string }>('dnsServers.zones.verifyDelegation', { id: zone.id }, admin)
    expect(passed).toEqual({
      ok: true,
      expected: ['ns1.zones-panel.test', 'ns2.zones-panel.test'],
      found: ['ns1.zones-panel.test', 'ns2.zones-panel.test'],
      detail: expect.stringContaining('they are equal'),
    })
    // The resolver sees the zone's own NS set once delegated; the detail must not claim it read the registrar.
    expect(passed.detail).toContain(`the NS set a recursive resolver returns for ${zone.name}`)
    expect(passed.detail).toContain("not the registrar's list")
    doh.set(zone.name, 'NS', ['ns1.zones-panel.test.', 'ns.parked.test.'])
    const mismatch = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDelegation',
      { id: zone.id },
      admin,
    )
    expect(mismatch.ok).toBe(false)
    expect(mismatch.detail).toContain('missing ns2.zones-panel.test; unexpected ns.parked.test')
    doh.set(zone.name, 'NS', [], 3)
    const missing = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDelegation',
      { id: zone.id },
      admin,
    )
    expect(missing).toMatchObject({ ok: false, found: [] })
    expect(missing.detail).toContain('NXDOMAIN')
    doh.httpStatus = 503
    const down = await call('dnsServers.zones.verifyDelegation', { id: zone.id }, admin)
    expect(down.status, down.text).toBe(502)
  })

  it('should pass when the parent publishes our DS, and fail on a stale or a missing one', async () => {
    const zone = await newZone('verifyds')
    const doh = new FakeDoh().install()
    expect(await ok('dnsServers.zones.verifyDs', { id: zone.id }, admin)).toMatchObject({
      ok: true,
      expected: [],
    })
    doh.set(zone.name, 'DS', ['12345 13 2 ABCDEF'])
    const unsigned = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDs',
      { id: zone.id },
      admin,
    )
    expect(unsigned.ok).toBe(false)
    expect(unsigned.detail).toContain('unsigned but the parent publishes DS')

    await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: true }, admin)
    const ds = await ok<{ ds: { keyTag: number; algorithm: number; digestType: number; digest: string }[] }>(
      'dnsServers.zones.getDsRecord',
      { id: zone.id },
      admin,
    )
    const sha256 = ds.ds.find((d) => d.digestType === 2)
    doh.set(zone.name, 'DS', [`${sha256?.keyTag} 13 2 ${sha256?.digest.toUpperCase()}`])
    const good = await ok<{ ok: boolean; found: string[] }>(
      'dnsServers.zones.verifyDs',
      { id: zone.id },
      admin,
    )
    expect(good.ok).toBe(true)
    expect(good.found).toEqual([`${sha256?.keyTag} 13 2 ${sha256?.digest}`])
    doh.set(zone.name, 'DS', ['12345 13 2 abcdef'])
    expect(await ok('dnsServers.zones.verifyDs', { id: zone.id }, admin)).toMatchObject({ ok: false })
    doh.set(zone.name, 'DS', [])
    const none = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.zones.verifyDs',
      { id: zone.id },
      admin,
    )
    expect(none.ok).toBe(false)
    expect(none.detail).toContain('enter one at the registrar')
  })
})

describe('dnsServers.zones permissions, REST and audit', () => {
  it('should let an operator read and answer 403 to every change', async () => {
    const zone = await newZone('perm')
    new FakeDoh().install()
    const operator = await operatorSession(admin)
    for (const name of [
      'dnsServers.zones.list',
      'dnsServers.zones.get',
      'dnsServers.zones.verifyDelegation',
      'dnsServers.zones.verifyDs',
    ]) {
      const response = await call(name, name.endsWith('list') ? {} : { id: zone.id }, operator)
      expect(response.status, `${name}: ${response.text}`).toBe(200)
    }
    const writes: [string, unknown][] = [
      ['dnsServers.zones.create', { name: 'operator.test' }],
      [
        'dnsServers.zones.upsertRecord',
        { id: zone.id, name: zone.name, type: 'A', ttl: 60, values: ['192.0.2.1'] },
      ],
      ['dnsServers.zones.deleteRecord', { id: zone.id, name: zone.name, type: 'A' }],
      ['dnsServers.zones.setDnssec', { id: zone.id, enabled: true }],
    ]
    const before = patches()
    for (const [name, input] of writes) {
      const response = await call(name, input, operator)
      expect(response.status, `${name}: ${response.text}`).toBe(403)
    }
    expect(patches()).toBe(before)
  })

  it('should serve upsert on its REST path, list it in OpenAPI, and audit each change', async () => {
    const zone = await newZone('rest')
    const response = await send('/api/v1/dnsServers/zones/records/upsert', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: admin.cookie ?? '',
        origin: 'https://panel.test',
      },
      body: JSON.stringify({
        id: zone.id,
        name: `www.${zone.name}`,
        type: 'AAAA',
        ttl: 60,
        values: ['2001:db8::7'],
      }),
    })
    expect(response.status, response.text).toBe(200)
    const openapi = await send('/api/v1/openapi.json')
    expect(Object.keys((openapi.body as { paths: Record<string, unknown> }).paths)).toContain(
      '/api/v1/dnsServers/zones/records/upsert',
    )
    await ok('dnsServers.zones.deleteRecord', { id: zone.id, name: `www.${zone.name}`, type: 'AAAA' }, admin)
    await ok('dnsServers.zones.setDnssec', { id: zone.id, enabled: true }, admin)
    const audit = await ok<{ entries: { action: string }[] }>('audit.list', { targetId: zone.id }, admin)
    expect(audit.entries.map((e) => e.action).sort()).toEqual([
      'zone.create',
      'zone.delete-record',
      'zone.set-dnssec',
      'zone.upsert-record',
    ])
  })
})

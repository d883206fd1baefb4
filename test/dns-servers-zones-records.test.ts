import { describe, expect, it } from 'vitest'
import {
  admin,
  boxA,
  boxB,
  newZone,
  patches,
  type RecordSet,
  records,
  type ZoneDetail,
} from './dns-servers/zones-fixture'
import { call, ok } from './helpers/http'

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

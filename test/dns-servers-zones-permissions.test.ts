import { describe, expect, it } from 'vitest'
import { admin, newZone, patches } from './dns-servers/zones-fixture'
import { FakeDoh } from './fakes/doh'
import { call, ok, send } from './helpers/http'
import { operatorSession } from './helpers/principals'

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

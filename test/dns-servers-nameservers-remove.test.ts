import { describe, expect, it } from 'vitest'
import { API_KEY, admin, enrollInput, freshBox, type NameserverRow } from './dns-servers/nameservers-fixture'
import { call, ok } from './helpers/http'

describe('dnsServers.nameservers.remove', () => {
  it('should remove the box and its node', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    expect(await ok('dnsServers.nameservers.remove', { id: row.id }, admin)).toEqual({ removed: true })
    expect((await call('dnsServers.nameservers.get', { id: row.id }, admin)).status).toBe(404)
    expect((await call('nodes.get', { id: row.id }, admin)).status).toBe(404)
    expect((await call('dnsServers.nameservers.remove', { id: row.id }, admin)).status).toBe(404)
  })

  it('should refuse to remove an enrolled nameserver through nodes.remove, which would skip its guards', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    const res = await call<{ detail: string }>('nodes.remove', { id: row.id }, admin)
    expect(res.status, res.text).toBe(409)
    expect(res.body.detail).toContain('dnsServers.nameservers.remove')
    expect((await call('dnsServers.nameservers.get', { id: row.id }, admin)).status).toBe(200)
  })

  it('should refuse to remove the only synced box of a zone whose other box is behind', async () => {
    const up = freshBox()
    const down = freshBox()
    const upRow = await ok<NameserverRow>(
      'dnsServers.nameservers.enroll',
      enrollInput({ apiUrl: up.apiUrl, apiKey: API_KEY }),
      admin,
    )
    await ok('dnsServers.nameservers.enroll', enrollInput({ apiUrl: down.apiUrl, apiKey: API_KEY }), admin)
    down.down = true
    await ok('dnsServers.zones.create', { name: `keep-${crypto.randomUUID().slice(0, 6)}.test` }, admin)
    const response = await call('dnsServers.nameservers.remove', { id: upRow.id }, admin)
    expect(response.status, response.text).toBe(409)
    expect(response.text).toContain('only synced')
  })
})

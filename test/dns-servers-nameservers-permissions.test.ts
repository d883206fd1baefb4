import { describe, expect, it } from 'vitest'
import { admin, enrollInput, type NameserverRow } from './dns-servers/nameservers-fixture'
import { call, ok } from './helpers/http'
import { operatorSession } from './helpers/principals'

describe('dnsServers.nameservers permissions', () => {
  it('should let an operator read and answer 403 to every change', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    const operator = await operatorSession(admin)
    expect((await call('dnsServers.nameservers.list', {}, operator)).status).toBe(200)
    expect((await call('dnsServers.nameservers.get', { id: row.id }, operator)).status).toBe(200)
    const writes: [string, unknown][] = [
      ['dnsServers.nameservers.enroll', enrollInput()],
      ['dnsServers.nameservers.installPowerDns', { id: row.id }],
      ['dnsServers.nameservers.verifyGlue', { id: row.id }],
      ['dnsServers.nameservers.remove', { id: row.id }],
    ]
    for (const [name, input] of writes) {
      const response = await call(name, input, operator)
      expect(response.status, `${name}: ${response.text}`).toBe(403)
    }
    expect(await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).toMatchObject({
      id: row.id,
    })
  })
})

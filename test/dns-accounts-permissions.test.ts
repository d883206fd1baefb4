import { describe, expect, it } from 'vitest'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { admin, createDns, installed, operator, type Row } from './helpers/dns-accounts'
import { call, ok } from './helpers/http'

describe('accounts permissions', () => {
  it('should let an operator read and answer 403 to every write', async () => {
    const fake = installed(cloudflareFake(), 'perm.test')
    const row = await createDns(fake)
    for (const [name, input] of [
      ['accounts.list', {}],
      ['accounts.get', { id: row.id }],
      ['accounts.zones', { id: row.id }],
      ['accounts.resolve', { kind: 'dns', domainId: 'd-1' }],
    ] as const) {
      const res = await call(name, input, operator)
      expect(res.status, `${name}: ${res.text}`).toBe(200)
    }
    for (const [name, input] of [
      ['accounts.create', { kind: 'dns', name: 'op', provider: 'provider_a', token: fake.token }],
      ['accounts.update', { id: row.id, name: 'op' }],
      ['accounts.remove', { id: row.id }],
      ['accounts.test', { id: row.id }],
      ['accounts.setDefault', { scope: 'domain', scopeId: 'd-1', kind: 'dns', accountId: row.id }],
    ] as const) {
      const res = await call(name, input, operator)
      expect(res.status, `${name}: ${res.text}`).toBe(403)
    }
    expect((await ok<Row>('accounts.get', { id: row.id }, admin)).name).toBe(row.name)
  })
})

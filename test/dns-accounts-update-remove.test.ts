import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { admin, createDns, installed, type Row, type Zones } from './helpers/dns-accounts'
import { call, ok } from './helpers/http'
import { outboundRequests } from './helpers/outbound'

describe('accounts.update', () => {
  it('should re-test with a new token, refresh the zones and audit without the token', async () => {
    const old = installed(cloudflareFake(), 'old.test')
    const row = await createDns(old)
    const rotated = installed(cloudflareFake({ origin: 'https://cf-second.internal.test' }), 'new.test')
    const updated = await ok<Row>(
      'accounts.update',
      { id: row.id, name: `${row.name}-renamed`, token: rotated.token, apiBaseUrl: rotated.apiBaseUrl },
      admin,
    )
    expect(updated).toMatchObject({ name: `${row.name}-renamed`, apiBaseUrl: rotated.apiBaseUrl })
    expect(updated.lastTestState.ok).toBe(true)
    expect((await ok<Zones>('accounts.zones', { id: row.id }, admin)).zones.map((z) => z.name)).toEqual([
      'new.test',
    ])
    const cleared = await ok<Row>(
      'accounts.update',
      { id: row.id, apiBaseUrl: null, token: rotated.token },
      admin,
    )
    expect(cleared.apiBaseUrl).toBeNull()
    expect(cleared.lastTestState.ok).toBe(false)
    const audit = await ok<{ entries: { targetId: string; detail: Record<string, unknown> }[] }>(
      'audit.list',
      { action: 'account.update', targetId: row.id },
      admin,
    )
    expect(audit.entries.map((entry) => entry.detail)).toEqual([
      { fields: ['apiBaseUrl'], tokenChanged: true, testOk: false },
      { fields: ['name', 'apiBaseUrl'], tokenChanged: true, testOk: true },
    ])
  })

  it('should refuse a new apiBaseUrl without the token, so the stored token goes to no new address', async () => {
    const relay = installed(digitalOceanFake({ origin: 'https://do-relay.internal.test' }), 'relay.test')
    const row = await createDns(relay, { apiBaseUrl: relay.apiBaseUrl }, 'provider_b')
    const callsBefore = outboundRequests().length
    for (const apiBaseUrl of ['https://collector.elsewhere.test/v2', null]) {
      const moved = await call('accounts.update', { id: row.id, apiBaseUrl }, admin)
      expect(moved.status, moved.text).toBe(400)
      expect(moved.body).toMatchObject({ issues: [{ path: 'token' }] })
    }
    expect(outboundRequests()).toHaveLength(callsBefore)
    expect(await ok<Row>('accounts.get', { id: row.id }, admin)).toMatchObject({
      apiBaseUrl: relay.apiBaseUrl,
      updatedAt: row.updatedAt,
    })
    // Naming the address it already has is no move.
    const renamed = await ok<Row>(
      'accounts.update',
      { id: row.id, name: `${row.name}-same-root`, apiBaseUrl: relay.apiBaseUrl },
      admin,
    )
    expect(renamed.lastTestState.ok).toBe(true)
    const second = installed(digitalOceanFake({ origin: 'https://do-second.internal.test' }), 'second.test')
    const callsBeforeMove = outboundRequests().length
    const moved = await ok<Row>(
      'accounts.update',
      { id: row.id, apiBaseUrl: second.apiBaseUrl, token: second.token },
      admin,
    )
    expect(moved).toMatchObject({ apiBaseUrl: second.apiBaseUrl, lastTestState: { ok: true } })
    const movedCalls = outboundRequests().slice(callsBeforeMove)
    expect(movedCalls.every((r) => r.url.startsWith(`${second.apiBaseUrl}/`))).toBe(true)
    expect(movedCalls.every((r) => r.headers.get('authorization') === `Bearer ${second.token}`)).toBe(true)
  })

  it('should 404 an unknown account and 400 a zoneId on a name-keyed provider', async () => {
    const missing = await call('accounts.update', { id: 'missing', name: 'x' }, admin)
    expect(missing.status, missing.text).toBe(404)
    const fake = installed(digitalOceanFake())
    const row = await createDns(fake, {}, 'provider_b')
    const res = await call('accounts.update', { id: row.id, zoneId: 'abc' }, admin)
    expect(res.status, res.text).toBe(400)
  })
})

describe('accounts.remove', () => {
  it('should remove an unused account with its cached zones and audit it', async () => {
    const fake = installed(cloudflareFake(), 'removed.test')
    const row = await createDns(fake)
    expect(await ok('accounts.remove', { id: row.id }, admin)).toEqual({ removed: true })
    expect((await call('accounts.get', { id: row.id }, admin)).status).toBe(404)
    const left = await env.DB.prepare('SELECT count(*) AS n FROM account_zones WHERE account_id = ?')
      .bind(row.id)
      .first<{ n: number }>()
    expect(left?.n).toBe(0)
    const audit = await ok<{ entries: unknown[] }>(
      'audit.list',
      { action: 'account.remove', targetId: row.id },
      admin,
    )
    expect(audit.entries).toHaveLength(1)
    expect((await call('accounts.remove', { id: row.id }, admin)).status).toBe(404)
  })
})

import { describe, expect, it } from 'vitest'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { hetznerFake } from './fakes/provider-c-hetzner'
import {
  admin,
  createDns,
  DNS_ROW_KEYS,
  installed,
  type Row,
  uniqueName,
  type Zones,
} from './helpers/dns-accounts'
import { call, ok } from './helpers/http'
import { interceptOutbound, outboundRequests } from './helpers/outbound'

describe('accounts.create for dns', () => {
  it('should answer the spec’s DnsAccountRow, test the token and cache the zones', async () => {
    const fake = installed(cloudflareFake(), 'example.test', 'other.test')
    const row = await createDns(fake)
    expect(Object.keys(row).sort()).toEqual(DNS_ROW_KEYS)
    expect(row).toMatchObject({ provider: 'provider_a', zoneId: null, apiBaseUrl: null, hasToken: true })
    expect(row.lastTestState).toMatchObject({ ok: true, retryAfterSeconds: null })
    expect(row.lastTestState.detail).toContain('2 zones: example.test, other.test')
    const zones = await ok<Zones>('accounts.zones', { id: row.id }, admin)
    expect(zones.zones.map((zone) => zone.name)).toEqual(['example.test', 'other.test'])
    expect(zones.refreshedAt).toBe(row.lastTestState.testedAt)
    expect(await ok('accounts.get', { id: row.id }, admin)).toEqual(row)
  })

  it('should store the account even when the provider refuses the token, with the failure in lastTestState', async () => {
    const fake = installed(hetznerFake(), 'example.test')
    const row = await ok<Row>(
      'accounts.create',
      { kind: 'dns', name: uniqueName('refused'), provider: 'provider_c', token: 'not-the-token' },
      admin,
    )
    expect(row.lastTestState.ok).toBe(false)
    expect(row.lastTestState.detail).toContain(
      'rejected the token (HTTP 401: unable to authenticate (unauthorized))',
    )
    // A token that is not a Hetzner Cloud API token is likely one of the retired DNS console.
    expect(row.lastTestState.detail).toContain('create an API token with Read & Write permission')
    expect((await ok<Zones>('accounts.zones', { id: row.id }, admin)).zones).toEqual([])
    expect(fake.records).toEqual([])
  })

  it('should store the account when the provider is unreachable, saying so', async () => {
    interceptOutbound()
    const row = await ok<Row>(
      'accounts.create',
      { kind: 'dns', name: uniqueName('offline'), provider: 'provider_b', token: 'dop_v1_x' },
      admin,
    )
    expect(row.lastTestState).toMatchObject({ ok: false, retryAfterSeconds: null })
    expect(row.lastTestState.detail).toContain('could not be reached at https://api.digitalocean.com/v2')
  })

  it('should narrow the account to its zoneId, and say when that zone is not visible to the token', async () => {
    const fake = installed(cloudflareFake(), 'one.test', 'two.test')
    const two = fake.zones[1]
    const scoped = await createDns(fake, { zoneId: two?.id })
    expect(scoped.zoneId).toBe(two?.id)
    expect((await ok<Zones>('accounts.zones', { id: scoped.id }, admin)).zones).toEqual([
      { id: two?.id, name: 'two.test' },
    ])
    const wrong = await createDns(fake, { zoneId: 'f'.repeat(32) })
    expect(wrong.lastTestState.ok).toBe(false)
    expect(wrong.lastTestState.detail).toContain(`zone ${'f'.repeat(32)} is not among the 2 zone(s)`)
  })

  it('should use the apiBaseUrl override for the test', async () => {
    const fake = installed(digitalOceanFake({ origin: 'https://do-relay.internal.test' }), 'relay.test')
    const row = await createDns(fake, { apiBaseUrl: fake.apiBaseUrl }, 'provider_b')
    expect(row).toMatchObject({ apiBaseUrl: 'https://do-relay.internal.test/v2', zoneId: null })
    expect(row.lastTestState.ok).toBe(true)
    expect(outboundRequests().every((r) => r.url.startsWith('https://do-relay.internal.test/v2/'))).toBe(true)
  })

  it('should refuse a provider of another kind, a zoneId on a name-keyed provider, a plain-http or private apiBaseUrl, a duplicate name and unknown fields', async () => {
    const base = { kind: 'dns', name: uniqueName('bad'), token: 'x' }
    const wrongKind = await call('accounts.create', { ...base, provider: 'github' }, admin)
    expect(wrongKind.status, wrongKind.text).toBe(400)
    expect(wrongKind.text).toContain('github is not a dns provider')
    const byName = await call('accounts.create', { ...base, provider: 'provider_d', zoneId: 'z1' }, admin)
    expect(byName.status, byName.text).toBe(400)
    expect(byName.body).toMatchObject({ issues: [{ path: 'zoneId' }] })
    const plain = await call(
      'accounts.create',
      { ...base, provider: 'provider_e', apiBaseUrl: 'http://api.linode.test/v4' },
      admin,
    )
    expect(plain.status, plain.text).toBe(400)
    expect(plain.text).toContain('must use https in production')
    const internal = await call(
      'accounts.create',
      { ...base, provider: 'provider_e', apiBaseUrl: 'https://10.1.2.3/v4' },
      admin,
    )
    expect(internal.status, internal.text).toBe(400)
    expect(internal.body).toMatchObject({ issues: [{ path: 'apiBaseUrl' }] })
    const unknown = await call('accounts.create', { ...base, provider: 'provider_a', secret: 1 }, admin)
    expect(unknown.status, unknown.text).toBe(400)
    const fake = installed(cloudflareFake())
    const first = await createDns(fake)
    const dup = await call(
      'accounts.create',
      { ...base, name: first.name, provider: 'provider_a', token: fake.token },
      admin,
    )
    expect(dup.status, dup.text).toBe(409)
  })
})

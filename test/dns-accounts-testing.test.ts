import { describe, expect, it } from 'vitest'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { hetznerFake } from './fakes/provider-c-hetzner'
import {
  admin,
  createDns,
  installed,
  operator,
  type Row,
  type TestResult,
  type Zones,
} from './helpers/dns-accounts'
import { ok } from './helpers/http'
import { fakeOrigin, outboundRequests } from './helpers/outbound'

describe('accounts.test', () => {
  it('should record lastTestState and refresh the zones', async () => {
    const fake = installed(cloudflareFake(), 'first.test')
    const row = await createDns(fake)
    fake.addZone('second.test')
    const result = await ok<TestResult>('accounts.test', { id: row.id }, admin)
    expect(Object.keys(result).sort()).toEqual(['detail', 'ok'])
    expect(result.ok).toBe(true)
    expect(result.detail).toContain('2 zones: first.test, second.test')
    const zones = await ok<Zones>('accounts.zones', { id: row.id }, admin)
    expect(zones.zones.map((zone) => zone.name)).toEqual(['first.test', 'second.test'])
    const got = await ok<Row>('accounts.get', { id: row.id }, admin)
    expect(got.lastTestState.detail).toBe(result.detail)
  })

  it('should report a rate limit in words, record retryAfterSeconds and keep the cached zones', async () => {
    const fake = installed(digitalOceanFake(), 'kept.test')
    const row = await createDns(fake, {}, 'provider_b')
    fake.rateLimitRetryAfter = 30
    const result = await ok<TestResult>('accounts.test', { id: row.id }, admin)
    expect(Object.keys(result).sort()).toEqual(['detail', 'ok'])
    expect(result.ok).toBe(false)
    expect(result.detail).toContain('rate limiting this token')
    expect(result.detail).toContain('retry after 30 s')
    const got = await ok<Row>('accounts.get', { id: row.id }, admin)
    expect(got.lastTestState).toMatchObject({ ok: false, retryAfterSeconds: 30 })
    expect((await ok<Zones>('accounts.zones', { id: row.id }, admin)).zones.map((z) => z.name)).toEqual([
      'kept.test',
    ])
  })

  it('should cap a provider’s Retry-After at one day, so an absurd one cannot park the account', async () => {
    const fake = installed(digitalOceanFake(), 'parked.test')
    const row = await createDns(fake, {}, 'provider_b')
    fake.rateLimitRetryAfter = 999_999_999_999
    const result = await ok<TestResult>('accounts.test', { id: row.id }, admin)
    expect(result.detail).toContain('retry after 86400 s')
    const got = await ok<Row>('accounts.get', { id: row.id }, operator)
    expect(got.lastTestState).toMatchObject({ ok: false, retryAfterSeconds: 86_400 })
  })

  it('should not call a provider again before its Retry-After has passed, and say when it may', async () => {
    const fake = installed(digitalOceanFake(), 'waiting.test')
    const row = await createDns(fake, {}, 'provider_b')
    fake.rateLimitRetryAfter = 600
    await ok<TestResult>('accounts.test', { id: row.id }, admin)
    const limited = await ok<Row>('accounts.get', { id: row.id }, admin)
    const callsBefore = outboundRequests().length
    fake.rateLimitRetryAfter = null
    const again = await ok<TestResult>('accounts.test', { id: row.id }, admin)
    expect(outboundRequests()).toHaveLength(callsBefore)
    const until = new Date(Date.parse(limited.lastTestState.testedAt) + 600_000).toISOString()
    expect(again).toEqual({
      ok: false,
      detail: `${limited.lastTestState.detail}; not tested again: the provider asked to wait until ${until}`,
    })
    expect((await ok<Row>('accounts.get', { id: row.id }, admin)).lastTestState).toEqual(
      limited.lastTestState,
    )
    const audit = await ok<{ entries: { detail: Record<string, unknown> }[] }>(
      'audit.list',
      { action: 'account.test', targetId: row.id },
      admin,
    )
    expect(audit.entries.map((entry) => entry.detail)).toEqual([
      { ok: false, tested: false },
      { ok: false, tested: true },
    ])
  })

  it('should not overwrite an update that committed while it was calling the provider', async () => {
    const old = cloudflareFake()
    old.addZone('old.test')
    const rotated = cloudflareFake()
    rotated.addZone('rotated.test')
    const byToken = (request: Request) =>
      request.headers.get('authorization') === `Bearer ${rotated.token}` ? rotated : old
    fakeOrigin(old.origin, (request) => byToken(request).handle(request))
    const row = await createDns(old)
    let raced = false
    fakeOrigin(old.origin, async (request) => {
      if (!raced) {
        raced = true
        await ok('accounts.update', { id: row.id, token: rotated.token }, admin)
      }
      return byToken(request).handle(request)
    })
    const stale = await ok<TestResult>('accounts.test', { id: row.id }, admin)
    expect(stale.detail).toContain('old.test')
    const got = await ok<Row>('accounts.get', { id: row.id }, admin)
    expect(got.lastTestState.detail).toContain('1 zone: rotated.test')
    expect((await ok<Zones>('accounts.zones', { id: row.id }, admin)).zones.map((z) => z.name)).toEqual([
      'rotated.test',
    ])
  })

  it('should drop the cached zones once the provider refuses the token', async () => {
    const first = installed(hetznerFake(), 'gone.test')
    const row = await createDns(first, {}, 'provider_c')
    installed(hetznerFake({ token: 'rotated-at-the-provider' }), 'gone.test')
    const result = await ok<TestResult>('accounts.test', { id: row.id }, admin)
    expect(result.ok).toBe(false)
    expect(result.detail).toContain('rejected the token')
    const zones = await ok<Zones>('accounts.zones', { id: row.id }, admin)
    expect(zones).toEqual({ zones: [], nextCursor: null, refreshedAt: null })
  })
})

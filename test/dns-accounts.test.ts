import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { DnsFake } from './fakes/dns-fake'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { hetznerFake } from './fakes/provider-c-hetzner'
import { type Caller, type CallResult, call, ok } from './helpers/http'
import { fakeOrigin, interceptOutbound, outboundRequests } from './helpers/outbound'
import { adminSession, operatorSession } from './helpers/principals'

interface TestState {
  ok: boolean
  detail: string
  retryAfterSeconds: number | null
  testedAt: string
}
interface Row {
  id: string
  name: string
  updatedAt: string
  provider: string
  zoneId?: string | null
  apiBaseUrl: string | null
  lastTestState: TestState
  hasToken: true
}
interface TestResult {
  ok: boolean
  detail: string
}
interface Zones {
  zones: { id: string; name: string }[]
  refreshedAt: string | null
}

const DNS_ROW_KEYS = [
  'apiBaseUrl',
  'createdAt',
  'hasToken',
  'id',
  'lastTestState',
  'name',
  'provider',
  'updatedAt',
  'zoneId',
]

let admin: Caller
let operator: Caller
let counter = 0
const uniqueName = (prefix: string) => `${prefix}-${++counter}`

function installed<F extends DnsFake>(fake: F, ...zones: string[]): F {
  for (const zone of zones) fake.addZone(zone)
  fakeOrigin(fake.origin, fake.handle)
  return fake
}

async function createDns(fake: DnsFake, extra: Record<string, unknown> = {}, provider = 'provider_a') {
  return ok<Row>(
    'accounts.create',
    { kind: 'dns', name: uniqueName(provider), provider, token: fake.token, ...extra },
    admin,
  )
}

beforeAll(async () => {
  admin = await adminSession()
  operator = await operatorSession(admin)
})

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

describe('git and ssl-issuer accounts', () => {
  it('should check the token format only, say so, call nobody, and answer a row without zoneId', async () => {
    interceptOutbound()
    const github = await ok<Row>(
      'accounts.create',
      { kind: 'git', name: uniqueName('gh'), provider: 'github', token: `ghp_${'a1B2'.repeat(9)}` },
      admin,
    )
    expect(Object.keys(github).sort()).toEqual(DNS_ROW_KEYS.filter((key) => key !== 'zoneId'))
    expect(github.lastTestState.ok).toBe(true)
    expect(github.lastTestState.detail).toContain('format check only; the token was not sent to GitHub')
    const zerossl = await ok<Row>(
      'accounts.create',
      { kind: 'ssl-issuer', name: uniqueName('zs'), provider: 'zerossl', token: 'not-a-key' },
      admin,
    )
    expect(zerossl.lastTestState).toMatchObject({ ok: false })
    expect(zerossl.lastTestState.detail).toContain('expected 32 hexadecimal characters')
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----'
    const le = await ok<Row>(
      'accounts.create',
      { kind: 'ssl-issuer', name: uniqueName('le'), provider: 'letsencrypt', token: pem },
      admin,
    )
    expect(le.lastTestState.ok).toBe(true)
    const zones = await call('accounts.zones', { id: github.id }, admin)
    expect(zones.status, zones.text).toBe(400)
    expect(outboundRequests()).toEqual([])
  })

  it('should list by kind', async () => {
    const fake = installed(cloudflareFake())
    const dns = await createDns(fake)
    const gitlab = await ok<Row>(
      'accounts.create',
      { kind: 'git', name: uniqueName('gl'), provider: 'gitlab', token: `glpat-${'x'.repeat(20)}` },
      admin,
    )
    const dnsList = await ok<Row[]>('accounts.list', { kind: 'dns' }, admin)
    expect(dnsList.map((row) => row.provider).every((p) => p.startsWith('provider_'))).toBe(true)
    expect(dnsList.map((row) => row.id)).toContain(dns.id)
    const gitList = await ok<Row[]>('accounts.list', { kind: 'git' }, admin)
    expect(gitList[0]?.id).toBe(gitlab.id)
    expect(gitList.map((row) => row.id)).not.toContain(dns.id)
    const all = await ok<Row[]>('accounts.list', {}, admin)
    expect(all.map((row) => row.id)).toEqual(expect.arrayContaining([dns.id, gitlab.id]))
  })
})

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

describe('the token', () => {
  it('should be stored sealed and appear in no response or audit entry', async () => {
    const marker = 'TOKENMARKER'
    const fake = installed(cloudflareFake({ token: `${marker}${'x'.repeat(29)}` }), 'marker.test')
    const texts: string[] = []
    const record = (res: CallResult) => {
      expect(res.status, res.text).toBe(200)
      texts.push(res.text)
      return res.body as Row
    }
    const row = record(
      await call(
        'accounts.create',
        { kind: 'dns', name: uniqueName('marker'), provider: 'provider_a', token: fake.token },
        admin,
      ),
    )
    record(await call('accounts.get', { id: row.id }, admin))
    record(await call('accounts.list', {}, admin))
    record(await call('accounts.test', { id: row.id }, admin))
    record(await call('accounts.zones', { id: row.id }, admin))
    record(await call('accounts.update', { id: row.id, token: `${marker}${'y'.repeat(29)}` }, admin))
    record(
      await call(
        'accounts.setDefault',
        { scope: 'domain', scopeId: 'marker-d', kind: 'dns', accountId: row.id },
        admin,
      ),
    )
    record(await call('accounts.resolve', { kind: 'dns', domainId: 'marker-d' }, admin))
    record(await call('audit.list', { limit: 200 }, admin))
    expect(texts.join('\n')).not.toContain(marker)
    const stored = await env.DB.prepare('SELECT token_sealed FROM accounts WHERE id = ?').bind(row.id).first<{
      token_sealed: string
    }>()
    expect(stored?.token_sealed).toMatch(/^v1\./)
    expect(stored?.token_sealed).not.toContain(marker)
    // The second token is wrong at the provider, and the failure detail does not echo it either.
    expect(texts[5]).toContain('rejected the token')
  })

  it('should keep out of lastTestState a provider error that echoes the token whole, in part or re-cased', async () => {
    const token = `${'Ech0'.repeat(5)}SecretPart${'q'.repeat(20)}`
    const echoes = [
      `Invalid access token ${token}`,
      `Invalid access token ${token.slice(18, 27)}`,
      `Invalid access token ${token.toUpperCase()}`,
    ]
    for (const [i, echo] of echoes.entries()) {
      fakeOrigin('https://api.cloudflare.com', () =>
        Response.json(
          { success: false, errors: [{ code: 9109, message: echo }], messages: [], result: null },
          { status: 401 },
        ),
      )
      const created = await ok<Row>(
        'accounts.create',
        { kind: 'dns', name: uniqueName(`echo-${i}`), provider: 'provider_a', token },
        admin,
      )
      const listed = await call('accounts.list', { kind: 'dns' }, operator)
      for (const text of [JSON.stringify(created), listed.text]) {
        expect(text.toLowerCase()).not.toContain(token.slice(18, 26).toLowerCase())
      }
      expect(created.lastTestState.detail).toContain(
        'rejected the token (HTTP 401: its message is left out because it repeats part of the token)',
      )
    }
  })

  it('should leave out zone names that repeat part of the token, and cap a long list of them', async () => {
    const fake = cloudflareFake()
    const echoing = installed(fake, `${fake.token.slice(4, 16)}.test`)
    const row = await createDns(echoing)
    expect(row.lastTestState.detail).toContain('1 zone (names left out: they repeat part of the token)')
    expect(row.lastTestState.detail).not.toContain(fake.token.slice(4, 12))
    const long = installed(
      cloudflareFake(),
      `${'a'.repeat(60)}.test`,
      `${'b'.repeat(60)}.test`,
      `${'c'.repeat(60)}.test`,
      `${'d'.repeat(60)}.test`,
    )
    const capped = await createDns(long)
    expect(capped.lastTestState.detail).toContain(`4 zones: ${'a'.repeat(60)}.test`)
    expect(capped.lastTestState.detail).not.toContain('d'.repeat(60))
  })

  it('should store at most 200 characters of a provider’s error, however long it is', async () => {
    // A long message is cut to 200 characters; a body past the read cap (a 200 KB dump) is not quoted at all.
    for (const size of [5000, 200_000]) {
      fakeOrigin('https://api.digitalocean.com', () =>
        Response.json({ id: 'bad_request', message: `boom ${'x'.repeat(size)}` }, { status: 400 }),
      )
      const created = await ok<Row>(
        'accounts.create',
        { kind: 'dns', name: uniqueName('huge'), provider: 'provider_b', token: 'dop_v1_huge' },
        admin,
      )
      const { detail } = created.lastTestState
      expect(detail).toContain('refused the request (HTTP 400')
      if (size === 5000) expect(detail).toContain(`bad_request: boom ${'x'.repeat(182)}…`)
      expect(detail).not.toContain('x'.repeat(200))
      expect(JSON.stringify(created).length).toBeLessThan(2000)
    }
    const listed = await call('accounts.list', { kind: 'dns' }, operator)
    expect(listed.text).not.toContain('x'.repeat(200))
  })
})

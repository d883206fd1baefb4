import { describe, expect, it } from 'vitest'
import { parseRetryAfter } from '../src/lib/retry-after'
import {
  DnsProviderError,
  type DnsProviderId,
  type DnsRecordRef,
  dnsDriver,
} from '../src/outside/dns-providers'
import type { DnsFake, FakeOptions, FakeZone } from './fakes/dns-fake'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { digitalOceanFake } from './fakes/provider-b-digitalocean'
import { hetznerFake } from './fakes/provider-c-hetzner'
import { vultrFake } from './fakes/provider-d-vultr'
import { linodeFake } from './fakes/provider-e-linode'
import { fakeOrigin, interceptOutbound, outboundRequests } from './helpers/outbound'

interface Case {
  provider: DnsProviderId
  makeFake(options?: FakeOptions): DnsFake
  defaultBase: string
  /** The name the provider's API is sent for `fqdn` in `zone`. */
  wireName(fqdn: string, zone: string): string
  /** The content the provider's API is sent for a CNAME to `target`. */
  wireCname(target: string): string
  /** The content the provider's API is sent for a TXT record holding `text`. */
  wireTxt(text: string): string
  /** The TTLs the provider's API is sent when 5 s and ten million seconds are asked for. */
  ttlBounds: [number, number]
  /** How the provider may write a CNAME target at the apex of `zone`. */
  wireApexTarget(zone: string): string
  /** The `name` filter a record listing for `www.example.test` sends, or null where the API has none. */
  nameFilter: string | null
}

const quoted = (text: string) => `"${text}"`
const raw = (text: string) => text

const relative = (apex: string) => (fqdn: string, zone: string) =>
  fqdn === zone ? apex : fqdn.slice(0, -(zone.length + 1))

const cases: Case[] = [
  {
    provider: 'provider_a',
    makeFake: cloudflareFake,
    defaultBase: 'https://api.cloudflare.com/client/v4',
    wireName: (fqdn) => fqdn,
    wireCname: (target) => target,
    wireTxt: quoted,
    ttlBounds: [60, 86_400],
    wireApexTarget: (zone) => zone,
    nameFilter: 'www.example.test',
  },
  {
    provider: 'provider_b',
    makeFake: digitalOceanFake,
    defaultBase: 'https://api.digitalocean.com/v2',
    wireName: relative('@'),
    wireCname: (target) => `${target}.`,
    wireTxt: raw,
    ttlBounds: [30, 10_000_000],
    wireApexTarget: () => '@',
    nameFilter: 'www.example.test',
  },
  {
    provider: 'provider_c',
    makeFake: hetznerFake,
    defaultBase: 'https://api.hetzner.cloud/v1',
    wireName: relative('@'),
    wireCname: (target) => `${target}.`,
    wireTxt: quoted,
    ttlBounds: [60, 10_000_000],
    wireApexTarget: () => '@',
    nameFilter: 'www',
  },
  {
    provider: 'provider_d',
    makeFake: vultrFake,
    defaultBase: 'https://api.vultr.com/v2',
    wireName: relative(''),
    wireCname: (target) => target,
    wireTxt: quoted,
    ttlBounds: [5, 10_000_000],
    wireApexTarget: (zone) => zone,
    nameFilter: null,
  },
  {
    provider: 'provider_e',
    makeFake: linodeFake,
    defaultBase: 'https://api.linode.com/v4',
    wireName: relative(''),
    wireCname: (target) => target,
    wireTxt: raw,
    ttlBounds: [30, 2_419_200],
    wireApexTarget: (zone) => zone,
    nameFilter: null,
  },
]

function installed(c: Case, options?: FakeOptions): DnsFake {
  const fake = c.makeFake(options)
  fakeOrigin(fake.origin, fake.handle)
  return fake
}

async function providerError(promise: Promise<unknown>): Promise<DnsProviderError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(DnsProviderError)
  return error as DnsProviderError
}

describe.each(cases)('DNS driver $provider', (c) => {
  it('should verify the token at the provider’s real default origin', async () => {
    const fake = installed(c)
    const detail = await dnsDriver(c.provider, { token: fake.token }).verify()
    expect(detail).toMatch(/accepted|active/)
    const [request] = outboundRequests()
    expect(request?.url.startsWith(`${c.defaultBase}/`), request?.url).toBe(true)
  })

  it('should list every zone, following the provider’s pagination', async () => {
    const fake = installed(c, { pageCap: 2 })
    for (const name of ['a.test', 'b.test', 'c.test', 'd.test', 'e.test']) fake.addZone(name)
    const zones = await dnsDriver(c.provider, { token: fake.token }).listZones()
    expect(zones.map((zone) => zone.name)).toEqual(['a.test', 'b.test', 'c.test', 'd.test', 'e.test'])
    expect(zones.map((zone) => zone.id)).toEqual(fake.zones.map((zone) => zone.id))
    expect(outboundRequests().length).toBe(3)
  })

  it('should find the zone of a hostname by its longest suffix', async () => {
    const fake = installed(c)
    fake.addZone('example.test')
    const sub = fake.addZone('sub.example.test')
    const driver = dnsDriver(c.provider, { token: fake.token })
    expect(await driver.findZone('app.sub.example.test')).toEqual({ id: sub.id, name: 'sub.example.test' })
    expect((await driver.findZone('www.example.test'))?.name).toBe('example.test')
    expect(await driver.findZone('elsewhere.test')).toBeNull()
  })

  it('should create records in the provider’s wire form and delete them again', async () => {
    const fake = installed(c)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver(c.provider, { token: fake.token })
    const cname = await driver.createRecord(zone, {
      type: 'CNAME',
      name: 'www.example.test',
      content: 'edge.panel.test',
      ttl: 300,
    })
    const txt = await driver.createRecord(zone, {
      type: 'TXT',
      name: 'example.test',
      content: 'hello',
      ttl: 300,
    })
    expect(fake.records.map(({ type, name, content, ttl }) => ({ type, name, content, ttl }))).toEqual([
      {
        type: 'CNAME',
        name: c.wireName('www.example.test', 'example.test'),
        content: c.wireCname('edge.panel.test'),
        ttl: 300,
      },
      {
        type: 'TXT',
        name: c.wireName('example.test', 'example.test'),
        content: c.wireTxt('hello'),
        ttl: 300,
      },
    ])
    expect(cname).toEqual({ zoneId: zone.id, zoneName: 'example.test', recordId: fake.records[0]?.id })
    expect(await driver.deleteRecord(cname)).toBe('deleted')
    expect(await driver.deleteRecord(txt)).toBe('deleted')
    expect(fake.records).toEqual([])
    expect(await driver.deleteRecord(cname)).toBe('already-gone')
  })

  it('should list exactly the records at a name, across pages, in the panel’s form', async () => {
    const fake = installed(c, { pageCap: 2 })
    const zone = fake.addZone('example.test')
    const other = fake.addZone('example.org')
    const seed = (into: FakeZone, type: string, fqdn: string, content: string) =>
      fake.addRecord(into, { type, name: c.wireName(fqdn, into.name), content, ttl: 300 })
    const www = [
      seed(zone, 'A', 'www.example.test', '192.0.2.1'),
      seed(zone, 'AAAA', 'www.example.test', '2001:db8::1'),
      seed(zone, 'TXT', 'www.example.test', c.wireTxt('hello world')),
    ]
    const apex = seed(zone, 'A', 'example.test', '192.0.2.9')
    seed(zone, 'A', 'a.www.example.test', '192.0.2.2')
    seed(zone, 'TXT', 'www2.example.test', c.wireTxt('other'))
    seed(other, 'A', 'www.example.org', '198.51.100.1')
    const alias = seed(zone, 'CNAME', 'alias.example.test', c.wireApexTarget('example.test'))
    const edge = seed(zone, 'CNAME', 'edge.example.test', c.wireCname('Edge.Panel.test'))
    const driver = dnsDriver(c.provider, { token: fake.token })

    const found = await driver.listRecords(zone, 'WWW.Example.test.')
    expect(found).toEqual([
      { recordId: www[0]?.id, type: 'A', name: 'www.example.test', content: '192.0.2.1', ttl: 300 },
      { recordId: www[1]?.id, type: 'AAAA', name: 'www.example.test', content: '2001:db8::1', ttl: 300 },
      { recordId: www[2]?.id, type: 'TXT', name: 'www.example.test', content: 'hello world', ttl: 300 },
    ])
    const listings = outboundRequests().map((r) => new URL(r.url))
    expect(listings.length).toBeGreaterThan(1)
    expect(listings.map((url) => url.searchParams.get('name'))).toEqual(listings.map(() => c.nameFilter))

    expect(await driver.listRecords(zone, 'example.test')).toEqual([
      { recordId: apex.id, type: 'A', name: 'example.test', content: '192.0.2.9', ttl: 300 },
    ])
    expect(
      (await driver.listRecords(zone, 'alias.example.test')).map((r) => [r.recordId, r.content]),
    ).toEqual([[alias.id, 'example.test']])
    expect((await driver.listRecords(zone, 'edge.example.test')).map((r) => [r.recordId, r.content])).toEqual(
      [[edge.id, 'edge.panel.test']],
    )
    expect(await driver.listRecords(zone, 'nothing.example.test')).toEqual([])
  })

  it('should list what it created as the panel planned it, and delete by a listed id exactly that record', async () => {
    const fake = installed(c)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver(c.provider, { token: fake.token })
    const planned = [
      { type: 'CNAME' as const, name: 'www.example.test', content: 'edge.panel.test', ttl: 300 },
      // Longer than one 255-byte character-string, with a backslash to escape.
      { type: 'TXT' as const, name: 'example.test', content: `v=1 \\ ${'x'.repeat(300)}`, ttl: 300 },
      { type: 'A' as const, name: 'example.test', content: '192.0.2.1', ttl: 300 },
      { type: 'A' as const, name: 'example.test', content: '192.0.2.2', ttl: 300 },
    ]
    const refs: DnsRecordRef[] = []
    for (const record of planned) refs.push(await driver.createRecord(zone, record))
    const listed = [
      ...(await driver.listRecords(zone, 'www.example.test')),
      ...(await driver.listRecords(zone, 'example.test')),
    ]
    expect(listed).toEqual(planned.map((record, i) => ({ recordId: refs[i]?.recordId, ...record })))
    const [, , first] = listed
    await driver.deleteRecord({ zoneId: zone.id, zoneName: zone.name, recordId: first?.recordId ?? '' })
    expect((await driver.listRecords(zone, 'example.test')).map((r) => r.content)).toEqual([
      planned[1]?.content,
      '192.0.2.2',
    ])
  })

  it('should leave the record in place when the answer to its create is lost, and fail as unavailable', async () => {
    const fake = installed(c)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver(c.provider, { token: fake.token })
    fake.loseNextCreateAnswer = true
    const error = await providerError(
      driver.createRecord(zone, { type: 'TXT', name: 'example.test', content: 'v=1', ttl: 300 }),
    )
    expect(error.kind).toBe('unavailable')
    expect(fake.loseNextCreateAnswer).toBe(false)
    expect(fake.records.map(({ type, content }) => ({ type, content }))).toEqual([
      { type: 'TXT', content: c.wireTxt('v=1') },
    ])
    expect((await driver.listRecords(zone, 'example.test')).map((r) => r.content)).toEqual(['v=1'])
  })

  it('should report a refused token as an auth error that does not repeat the token', async () => {
    installed(c)
    const wrong = 'wrongTokenWrongTokenWrongTokenWrongToken'
    const error = await providerError(dnsDriver(c.provider, { token: wrong }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain(c.provider)
    expect(error.message).toContain('rejected the token')
    expect(error.message).not.toContain(wrong)
  })

  it('should surface a 429 as rate_limited with the Retry-After seconds', async () => {
    const fake = installed(c)
    fake.rateLimitRetryAfter = 42
    const error = await providerError(dnsDriver(c.provider, { token: fake.token }).listZones())
    expect(error.kind).toBe('rate_limited')
    // Hetzner says when its window resets (a Unix time) instead, read against the clock a second later at most.
    expect(Math.abs((error.retryAfterSeconds ?? 0) - 42)).toBeLessThanOrEqual(1)
    expect(error.message).toMatch(/retry after (41|42|43) s/)
  })

  it('should clamp the TTL into what the provider takes before sending it', async () => {
    const fake = installed(c)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver(c.provider, { token: fake.token })
    await driver.createRecord(zone, { type: 'A', name: 'low.example.test', content: '192.0.2.1', ttl: 5 })
    await driver.createRecord(zone, {
      type: 'A',
      name: 'high.example.test',
      content: '192.0.2.2',
      ttl: 10_000_000,
    })
    expect(fake.records.map((r) => r.ttl)).toEqual(c.ttlBounds)
  })

  it('should send an international name in punycode, and find its zone by either form', async () => {
    const fake = installed(c)
    const zone = fake.addZone('xn--bcher-kva.test')
    const driver = dnsDriver(c.provider, { token: fake.token })
    expect(await driver.findZone('www.Bücher.test')).toEqual({ id: zone.id, name: 'xn--bcher-kva.test' })
    await driver.createRecord(
      { id: zone.id, name: 'bücher.test' },
      { type: 'CNAME', name: 'www.bücher.test', content: 'edge.bücher.test', ttl: 300 },
    )
    expect(fake.records.map(({ name, content }) => ({ name, content }))).toEqual([
      {
        name: c.wireName('www.xn--bcher-kva.test', 'xn--bcher-kva.test'),
        content: c.wireCname('edge.xn--bcher-kva.test'),
      },
    ])
  })

  it('should never quote a provider error that repeats part of the token, and cap one that is long', async () => {
    const token = 'Tok3nSecretValue0123456789abcdefghijklmnopqrstuvwxyz0123456789AB'
    const echoes = [
      `Invalid access token ${token}`,
      `Invalid access token ${token.slice(20, 29)}…`,
      `bad token ${token.toUpperCase()}`,
      `${'long error '.repeat(20_000)}`,
    ]
    for (const echo of echoes) {
      fakeOrigin(new URL(c.defaultBase).origin, () => echoingAnswer(c.provider, echo))
      const error = await providerError(dnsDriver(c.provider, { token }).verify())
      expect(error.kind).toBe('auth')
      expect(error.message.toLowerCase()).not.toContain(token.slice(20, 28).toLowerCase())
      expect(error.message.length).toBeLessThan(400)
    }
  })

  it('should report a zone the provider does not know as not_found', async () => {
    const fake = installed(c)
    const driver = dnsDriver(c.provider, { token: fake.token })
    const missing = { id: c.provider === 'provider_e' ? '999999' : 'missing.test', name: 'missing.test' }
    const error = await providerError(
      driver.createRecord(missing, { type: 'TXT', name: 'missing.test', content: 'x', ttl: 300 }),
    )
    expect(error.kind).toBe('not_found')
  })

  it('should report an unreachable provider as unavailable', async () => {
    interceptOutbound()
    const error = await providerError(dnsDriver(c.provider, { token: 'anything' }).verify())
    expect(error.kind).toBe('unavailable')
    expect(error.message).toContain('could not be reached')
  })

  it('should report a destination the outbound rule refuses as invalid, not as an outage', async () => {
    interceptOutbound()
    const driver = dnsDriver(c.provider, { token: 'anything', apiBaseUrl: 'http://127.0.0.1:9/api' })
    const error = await providerError(driver.verify())
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('was not called: refused by the outbound rule')
  })

  it('should give up after its timeout and say so', async () => {
    fakeOrigin(
      new URL(c.defaultBase).origin,
      (request) =>
        new Promise((_, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        ),
    )
    const error = await providerError(dnsDriver(c.provider, { token: 'anything', timeoutMs: 50 }).verify())
    expect(error.kind).toBe('unavailable')
    expect(error.message).toContain('did not answer within 0.05 s')
  })

  it('should call the account’s apiBaseUrl instead of the default when one is set', async () => {
    const fake = installed(c, { origin: 'https://dns-gateway.internal.test', basePath: '/relay/api' })
    fake.addZone('example.test')
    const zones = await dnsDriver(c.provider, {
      token: fake.token,
      apiBaseUrl: `${fake.apiBaseUrl}/`,
    }).listZones()
    expect(zones.map((zone) => zone.name)).toEqual(['example.test'])
    expect(
      outboundRequests().every((r) => r.url.startsWith('https://dns-gateway.internal.test/relay/api/')),
    ).toBe(true)
  })

  it(`should ${c.provider === 'provider_a' ? 'pass' : 'refuse'} a proxied record`, async () => {
    const fake = installed(c)
    const zone = fake.addZone('example.test')
    const record = {
      type: 'A' as const,
      name: 'example.test',
      content: '192.0.2.10',
      ttl: 300,
      proxied: true,
    }
    const driver = dnsDriver(c.provider, { token: fake.token })
    if (driver.capabilities.proxy) {
      await driver.createRecord(zone, record)
      expect(fake.records[0]?.proxied).toBe(true)
    } else {
      expect((await providerError(driver.createRecord(zone, record))).kind).toBe('invalid')
      expect(outboundRequests()).toEqual([])
    }
  })
})

// A 401 in the provider's own error shape, saying `words`.
function echoingAnswer(provider: DnsProviderId, words: string): Response {
  const bodies: Record<DnsProviderId, unknown> = {
    provider_a: { success: false, errors: [{ code: 9109, message: words }], messages: [], result: null },
    provider_b: { id: 'Unauthorized', message: words },
    provider_c: { error: { code: 'unauthorized', message: words, details: {} } },
    provider_d: { error: words, status: 401 },
    provider_e: { errors: [{ reason: words }] },
  }
  return Response.json(bodies[provider], { status: 401 })
}

describe('DNS driver capabilities', () => {
  it('should give proxying to provider_a only and say how each keys its zones', () => {
    const capabilities = cases.map((c) => [c.provider, dnsDriver(c.provider, { token: 't' }).capabilities])
    expect(Object.fromEntries(capabilities)).toEqual({
      provider_a: { proxy: true, delete: true, zoneKey: 'id' },
      provider_b: { proxy: false, delete: true, zoneKey: 'name' },
      provider_c: { proxy: false, delete: true, zoneKey: 'id' },
      provider_d: { proxy: false, delete: true, zoneKey: 'name' },
      provider_e: { proxy: false, delete: true, zoneKey: 'id' },
    })
  })
})

describe('provider_a specifics (Cloudflare)', () => {
  it('should treat a malformed token, which Cloudflare answers with 400 and code 6003, as an auth error', async () => {
    installed(cases[0] as Case)
    const error = await providerError(dnsDriver('provider_a', { token: 'too-short' }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain('6003 Invalid request headers')
    // Only a 401 may mean an account API token; a malformed one is not tried against the zone listing.
    expect(outboundRequests()).toHaveLength(1)
  })

  it('should refuse a token Cloudflare reports as disabled', async () => {
    const fake = cloudflareFake()
    fake.tokenStatus = 'disabled'
    fakeOrigin(fake.origin, fake.handle)
    const error = await providerError(dnsDriver('provider_a', { token: fake.token }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain('disabled')
  })

  it('should check an account API token, which /user/tokens/verify refuses, by listing zones and say so', async () => {
    const fake = cloudflareFake({ accountToken: true })
    fakeOrigin(fake.origin, fake.handle)
    const detail = await dnsDriver('provider_a', { token: fake.token }).verify()
    expect(detail).toContain('refused the token at GET /user/tokens/verify')
    expect(detail).toContain('checked by listing zones')
    expect(outboundRequests().map((r) => new URL(r.url).pathname)).toEqual([
      '/client/v4/user/tokens/verify',
      '/client/v4/zones',
    ])
  })

  it('should still report a wrong token as rejected after the zone listing refuses it too', async () => {
    const fake = cloudflareFake({ accountToken: true })
    fakeOrigin(fake.origin, fake.handle)
    const error = await providerError(dnsDriver('provider_a', { token: 'w'.repeat(40) }).verify())
    expect(error.kind).toBe('auth')
    expect(error.message).toContain('rejected the token (HTTP 401: 1000 Invalid API Token)')
    expect(outboundRequests()).toHaveLength(2)
  })

  it('should not read "No route for that URI" (7000), a wrong API root, as a record already gone', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver('provider_a', { token: fake.token, apiBaseUrl: `${fake.origin}/client/v3` })
    const error = await providerError(
      driver.deleteRecord({ zoneId: zone.id, zoneName: zone.name, recordId: 'f'.repeat(32) }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('7000 No route for that URI')
  })

  it('should throw exists on "an identical record already exists" (81058) and adopt nothing', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    const theirs = fake.addRecord(zone, { type: 'TXT', name: 'example.test', content: '"v=1"', ttl: 300 })
    const driver = dnsDriver('provider_a', { token: fake.token })
    const error = await providerError(
      driver.createRecord(zone, { type: 'TXT', name: 'example.test', content: 'v=1', ttl: 300 }),
    )
    expect(error.kind).toBe('exists')
    expect(error.message).toContain('81058 An identical record already exists.')
    expect(fake.records).toEqual([theirs])
    expect(outboundRequests().map((r) => r.method)).toEqual(['POST'])
  })

  it('should pass on the refusal of a CNAME beside an A (81053) and of an A beside a CNAME (81054)', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'A', name: 'www.example.test', content: '192.0.2.1', ttl: 300 })
    fake.addRecord(zone, { type: 'CNAME', name: 'shop.example.test', content: 'them.test', ttl: 300 })
    const driver = dnsDriver('provider_a', { token: fake.token })
    const cname = await providerError(
      driver.createRecord(zone, { type: 'CNAME', name: 'www.example.test', content: 'edge.test', ttl: 300 }),
    )
    expect([cname.kind, cname.message]).toEqual(['invalid', expect.stringContaining('81053')])
    const a = await providerError(
      driver.createRecord(zone, { type: 'A', name: 'shop.example.test', content: '192.0.2.2', ttl: 300 }),
    )
    expect([a.kind, a.message]).toEqual(['invalid', expect.stringContaining('81054')])
    expect(fake.records).toHaveLength(2)
  })

  it('should refuse to proxy a TXT record without calling Cloudflare', async () => {
    const fake = installed(cases[0] as Case)
    const zone = fake.addZone('example.test')
    const driver = dnsDriver('provider_a', { token: fake.token })
    const error = await providerError(
      driver.createRecord(zone, { type: 'TXT', name: 'example.test', content: 'x', ttl: 300, proxied: true }),
    )
    expect(error.kind).toBe('invalid')
    expect(outboundRequests()).toEqual([])
  })
})

describe('provider_b specifics (DigitalOcean)', () => {
  it('should pass on the refusal of a CNAME at a name that holds other records', async () => {
    const fake = installed(cases[1] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'TXT', name: 'www', content: 'theirs', ttl: 300 })
    const error = await providerError(
      dnsDriver('provider_b', { token: fake.token }).createRecord(zone, {
        type: 'CNAME',
        name: 'www.example.test',
        content: 'edge.test',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('CNAME records cannot share a name with other records')
    expect(fake.records).toHaveLength(1)
  })

  it('should accept a token scoped to DNS only, which may not read /v2/account, by listing domains', async () => {
    const fake = digitalOceanFake({ dnsOnlyScope: true })
    fakeOrigin(fake.origin, fake.handle)
    const detail = await dnsDriver('provider_b', { token: fake.token }).verify()
    expect(detail).toContain('GET /v2/domains')
    expect(outboundRequests().map((r) => new URL(r.url).pathname)).toEqual(['/v2/domains'])
  })
})

describe('provider_c specifics (Hetzner Cloud)', () => {
  const cloudToken = 'a'.repeat(64)

  it('should read a CNAME target without its final dot as relative to the zone', async () => {
    const fake = installed(cases[2] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'CNAME', name: 'www', content: 'Web', ttl: 300 })
    const driver = dnsDriver('provider_c', { token: fake.token })
    expect(await driver.listRecords(zone, 'www.example.test')).toEqual([
      {
        recordId: 'www/CNAME/Web',
        type: 'CNAME',
        name: 'www.example.test',
        content: 'web.example.test',
        ttl: 300,
      },
    ])
  })

  it('should wait for a record action to finish before answering', async () => {
    const fake = hetznerFake()
    fakeOrigin(fake.origin, fake.handle)
    fake.actionPolls = 2
    const zone = fake.addZone('example.test')
    const ref = await dnsDriver('provider_c', { token: fake.token }).createRecord(zone, {
      type: 'A',
      name: 'example.test',
      content: '192.0.2.1',
      ttl: 300,
    })
    expect(ref.recordId).toBe('@/A/192.0.2.1')
    expect(fake.records).toHaveLength(1)
    expect(outboundRequests().map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      `POST /v1/zones/${zone.id}/rrsets/@/A/actions/add_records`,
      'GET /v1/actions/1',
      'GET /v1/actions/1',
    ])
  })

  it('should report an action that ends in error as a refused change', async () => {
    const fake = hetznerFake()
    fakeOrigin(fake.origin, fake.handle)
    fake.failNextAction = 'Action failed'
    const zone = fake.addZone('example.test')
    const error = await providerError(
      dnsDriver('provider_c', { token: fake.token }).createRecord(zone, {
        type: 'TXT',
        name: 'example.test',
        content: 'x',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('could not apply the change (action 1: Action failed)')
    expect(fake.records).toEqual([])
  })

  it('should tell the operator to create a Hetzner Cloud API token when an old DNS-console token is refused', async () => {
    installed(cases[2] as Case)
    const old = await providerError(dnsDriver('provider_c', { token: 'b'.repeat(32) }).verify())
    expect(old.kind).toBe('auth')
    expect(old.message).toContain('rejected the token (HTTP 401: unable to authenticate (unauthorized))')
    expect(old.message).toContain('create an API token with Read & Write permission in the Hetzner Console')
    const revoked = await providerError(dnsDriver('provider_c', { token: cloudToken }).verify())
    expect(revoked.kind).toBe('auth')
    expect(revoked.message).not.toContain('Hetzner Console')
  })
})

describe('provider_d specifics (Vultr)', () => {
  it('should refuse TXT data holding a double quote, which Vultr cannot take, without calling it', async () => {
    const fake = installed(cases[3] as Case)
    const zone = fake.addZone('example.test')
    const error = await providerError(
      dnsDriver('provider_d', { token: fake.token }).createRecord(zone, {
        type: 'TXT',
        name: 'example.test',
        content: 'say "hi"',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(outboundRequests()).toEqual([])
  })

  it('should carry the Retry-After of a 503 (maintenance) as well as of a 429', async () => {
    const fake = vultrFake()
    fakeOrigin(fake.origin, fake.handle)
    fake.outageRetryAfter = 60
    const error = await providerError(dnsDriver('provider_d', { token: fake.token }).listZones())
    expect(error.kind).toBe('unavailable')
    expect(error.retryAfterSeconds).toBe(60)
    expect(error.message).toContain(
      'failed to answer (HTTP 503: Service temporarily unavailable.); retry after 60 s',
    )
  })
})

describe('provider_e specifics (Linode)', () => {
  it('should pass on the refusal of a second CNAME at one name', async () => {
    const fake = installed(cases[4] as Case)
    const zone = fake.addZone('example.test')
    fake.addRecord(zone, { type: 'CNAME', name: 'www', content: 'them.test', ttl: 300 })
    const error = await providerError(
      dnsDriver('provider_e', { token: fake.token }).createRecord(zone, {
        type: 'CNAME',
        name: 'www.example.test',
        content: 'edge.test',
        ttl: 300,
      }),
    )
    expect(error.kind).toBe('invalid')
    expect(error.message).toContain('name: Record conflict - CNAMES must be unique')
    expect(fake.records).toHaveLength(1)
  })

  it('should leave out slave domains, which take no records through the API', async () => {
    const fake = linodeFake({ slaveZones: ['secondary.test'] })
    fakeOrigin(fake.origin, fake.handle)
    fake.addZone('primary.test')
    const zones = await dnsDriver('provider_e', { token: fake.token }).listZones()
    expect(zones.map((zone) => zone.name)).toEqual(['primary.test'])
  })
})

describe('Retry-After parsing', () => {
  it('should read seconds and HTTP dates, and ignore anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('120', now)).toBe(120)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90)
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })

  it('should cap a pause asked for at one day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('999999999999', now)).toBe(86_400)
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(86_400)
    expect(parseRetryAfter('86400', now)).toBe(86_400)
  })
})

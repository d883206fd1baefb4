import { describe, expect, it } from 'vitest'
import { type DnsProviderId, type DnsRecordRef, dnsDriver } from '../../src/outside/dns-providers'
import type { FakeZone } from '../fakes/dns-fake'
import { fakeOrigin, interceptOutbound, outboundRequests } from '../helpers/outbound'
import { cases, installed, providerError } from './cases'

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

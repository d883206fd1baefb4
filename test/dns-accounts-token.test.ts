import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { admin, createDns, installed, operator, type Row, uniqueName } from './helpers/dns-accounts'
import { type CallResult, call, ok } from './helpers/http'
import { fakeOrigin } from './helpers/outbound'

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

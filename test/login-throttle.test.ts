import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { clientAddress } from '../src/auth/client-address'
import { type Caller, type CallResult, ok, send } from './helpers/http'
import { adminSession, BOOTSTRAP } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

/**
 * A sign-in as a client at `address`, arriving through Cloudflare's edge (the request carries a `cf` object and
 * `cf-connecting-ip`), or, with `edge: false`, straight to the Worker with the same header the client chose.
 */
function signInFrom(
  address: string,
  email: string,
  password: string,
  { edge = true }: { edge?: boolean } = {},
): Promise<CallResult> {
  return send('/api/rpc/auth.login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cf-connecting-ip': address },
    body: JSON.stringify({ email, password }),
    ...(edge ? { cf: { colo: 'TST', country: 'ZZ' } } : {}),
  })
}

async function failuresAudited(email: string): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM audit_log WHERE action = 'auth.login' AND outcome = 'failure' AND json_extract(detail, '$.email') = ?",
  )
    .bind(email)
    .first<{ n: number }>()
  return row?.n ?? 0
}

function tally(results: CallResult[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1
  return counts
}

describe('sign-in throttle per email and client', () => {
  it('should answer at most 10 of 40 parallel wrong guesses from one client on one email at once, slowing the rest to a 429', {
    timeout: 30_000,
  }, async () => {
    const email = 'burst@panel.test'
    await ok('users.create', { email, password: 'burst-password-ok', role: 'operator' }, admin)
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signInFrom('198.51.100.1', email, `wrong-guess-${i}`)),
    )
    const counts = tally(results)
    expect(counts[401] ?? 0, JSON.stringify(counts)).toBeLessThanOrEqual(10)
    expect((counts[401] ?? 0) + (counts[429] ?? 0), JSON.stringify(counts)).toBe(40)
    for (const r of results.filter((r) => r.status === 429)) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect(await failuresAudited(email)).toBeLessThanOrEqual(10)
    // Over the budget the right password still signs in, after the same wait.
    const right = await signInFrom('198.51.100.1', email, 'burst-password-ok')
    expect(right.status, right.text).toBe(200)
  })

  it("should let the user sign in at once from a clean client while another client's failures slow only that client", {
    timeout: 30_000,
  }, async () => {
    const email = 'alice@panel.test'
    await ok('users.create', { email, password: 'alice-password-ok', role: 'operator' }, admin)
    // Someone else hammers alice's account from client A.
    for (let i = 0; i < 12; i++) {
      const res = await signInFrom('192.0.2.10', email, `attacker-guess-${i}`)
      expect(res.status, res.text).toBe(i < 10 ? 401 : 429)
    }
    const startedB = Date.now()
    const fromB = await signInFrom('192.0.2.20', email, 'alice-password-ok')
    expect(fromB.status, fromB.text).toBe(200)
    expect(Date.now() - startedB).toBeLessThan(1900)
    const wrongFromA = await signInFrom('192.0.2.10', email, 'attacker-guess-last')
    expect(wrongFromA.status, wrongFromA.text).toBe(429)
    const retryAfter = Number(wrongFromA.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(15 * 60)
    const fromA = await signInFrom('192.0.2.10', email, 'alice-password-ok')
    expect(fromA.status, fromA.text).toBe(200)
    // Client A's other accounts are untouched by its budget on alice.
    expect((await signInFrom('192.0.2.10', BOOTSTRAP.email, BOOTSTRAP.password)).status).toBe(200)
  })

  it('should refund a successful attempt so it never counts as a failure', async () => {
    const email = 'refund@panel.test'
    await ok('users.create', { email, password: 'refund-password-ok', role: 'operator' }, admin)
    for (let i = 0; i < 9; i++)
      expect((await signInFrom('198.51.100.2', email, `wrong-${i}-pw`)).status).toBe(401)
    for (let i = 0; i < 3; i++) {
      const res = await signInFrom('198.51.100.2', email, 'refund-password-ok')
      expect(res.status, res.text).toBe(200)
    }
  })

  it('should put an email guessed by many clients under pressure: smaller per-client budgets and a delay, never a refusal of the right password', {
    timeout: 60_000,
  }, async () => {
    const email = 'pressure@panel.test'
    await ok('users.create', { email, password: 'pressure-password-ok', role: 'operator' }, admin)
    // 100 failures from 10 clients: each within its own budget on the email.
    for (let client = 0; client < 10; client++) {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => signInFrom(`100.64.0.${client}`, email, `spread-${i}`)),
      )
      expect(tally(results), `client ${client}`).toEqual({ 401: 10 })
    }
    // Now a new client gets 3 evaluated guesses on the email, each delayed.
    const started = Date.now()
    const guesses = await Promise.all(
      Array.from({ length: 5 }, (_, i) => signInFrom('100.64.1.1', email, `late-guess-${i}`)),
    )
    expect(tally(guesses)).toEqual({ 401: 3, 429: 2 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
    // The owner, from a client that has not been failing, still signs in: later, not refused.
    const owner = await signInFrom('100.64.2.2', email, 'pressure-password-ok')
    expect(owner.status, owner.text).toBe(200)
    // Other emails are not under pressure.
    const elsewhere = Date.now()
    expect((await signInFrom('100.64.2.2', 'someone-else@panel.test', 'any-guess')).status).toBe(401)
    expect(Date.now() - elsewhere).toBeLessThan(1900)
  })
})

describe('sign-in throttle per client', () => {
  it('should slow one client rotating emails after 30 failures to a 429, without auditing the rest', {
    timeout: 30_000,
  }, async () => {
    const address = '203.0.113.7'
    const emails = Array.from({ length: 45 }, (_, i) => `rotating-${i}@panel.test`)
    const results: CallResult[] = []
    // In waves, so the per-email limits never play a part.
    for (let wave = 0; wave < 3; wave++) {
      results.push(
        ...(await Promise.all(
          emails.slice(wave * 15, wave * 15 + 15).map((email) => signInFrom(address, email, 'any-guess')),
        )),
      )
    }
    const counts = tally(results)
    expect(counts, JSON.stringify(counts)).toEqual({ 401: 30, 429: 15 })
    const audited = await env.DB.prepare(
      "SELECT count(*) AS n FROM audit_log WHERE action = 'auth.login' AND json_extract(detail, '$.email') LIKE 'rotating-%'",
    ).first<{ n: number }>()
    expect(audited?.n).toBe(30)
    const refused = results.find((r) => r.status === 429)
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another client is not affected, and the slowed one still signs in with the right password, within 3 s.
    const elsewhere = await signInFrom('203.0.113.8', 'rotating-0@panel.test', 'any-guess')
    expect(elsewhere.status, elsewhere.text).toBe(401)
    const started = Date.now()
    const slowed = await signInFrom(address, BOOTSTRAP.email, BOOTSTRAP.password)
    expect(slowed.status, slowed.text).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('should not trust cf-connecting-ip off the edge: rotating it shares one budget with every unknown client', {
    timeout: 30_000,
  }, async () => {
    const results: CallResult[] = []
    for (let i = 0; i < 32; i++)
      results.push(await signInFrom(`198.18.0.${i}`, `spoofed-${i}@panel.test`, 'any-guess', { edge: false }))
    expect(tally(results), JSON.stringify(tally(results))).toEqual({ 401: 30, 429: 2 })
    // A caller with no header at all is the same unknown client.
    const bare = await send('/api/rpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'anon-last@panel.test', password: 'any-guess' }),
    })
    expect(bare.status, bare.text).toBe(429)
    // Through the edge, the same address is a client of its own.
    const edge = await signInFrom('198.18.0.1', 'spoofed-1@panel.test', 'any-guess')
    expect(edge.status, edge.text).toBe(401)
  })
})

describe('clientAddress', () => {
  const request = (cf: boolean, headers: Record<string, string> = {}) =>
    new Request('https://panel.test/', {
      headers: { 'cf-connecting-ip': '203.0.113.9', ...headers },
      ...(cf ? { cf: { colo: 'TST' } } : {}),
    })

  it("should trust cf-connecting-ip only beside the edge's cf object, and never under wrangler dev", () => {
    expect(clientAddress(request(true), { ENVIRONMENT: 'production' })).toBe('203.0.113.9')
    expect(clientAddress(request(false), { ENVIRONMENT: 'production' })).toBeNull()
    // wrangler dev makes up a cf object and keeps the header a client sent.
    expect(clientAddress(request(true), { ENVIRONMENT: 'development' })).toBeNull()
  })

  it('should read only the named trusted header when one is set, taking the entry the proxy appended', () => {
    const behindProxy = { ENVIRONMENT: 'development', TRUSTED_CLIENT_IP_HEADER: 'X-Forwarded-For' }
    const forwarded = request(false, { 'x-forwarded-for': '10.9.9.9, 2001:DB8::7' })
    expect(clientAddress(forwarded, behindProxy)).toBe('2001:db8::7')
    // The named header is the only source: cf-connecting-ip is ignored, and without the header nobody is known.
    expect(clientAddress(request(true), { ...behindProxy, ENVIRONMENT: 'production' })).toBeNull()
    expect(clientAddress(request(false, { 'x-forwarded-for': 'x'.repeat(65) }), behindProxy)).toBeNull()
    expect(clientAddress(forwarded, { ENVIRONMENT: 'production', TRUSTED_CLIENT_IP_HEADER: ' ' })).toBeNull()
  })
})

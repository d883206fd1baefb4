import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, type CallResult, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

/** A sign-in as a client at `address` (cf-connecting-ip, as Cloudflare's edge sets it). */
function signInFrom(address: string, email: string, password: string): Promise<CallResult> {
  return send('/api/rpc/auth.login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cf-connecting-ip': address },
    body: JSON.stringify({ email, password }),
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

describe('sign-in throttle under parallel guesses', () => {
  it('should evaluate at most 10 of 40 parallel wrong guesses for one email, refusing the rest with 429', async () => {
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
    const right = await signInFrom('198.51.100.1', email, 'burst-password-ok')
    expect(right.status, right.text).toBe(429)
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
})

describe('sign-in throttle per client address', () => {
  it('should stop one address rotating emails after 30 failures, without auditing or hashing the rest', {
    timeout: 30_000,
  }, async () => {
    const address = '203.0.113.7'
    const emails = Array.from({ length: 45 }, (_, i) => `rotating-${i}@panel.test`)
    const results: CallResult[] = []
    // In waves, so the per-email limit never plays a part.
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
    // Another address is not affected, and the limited one is refused even with the right password.
    const elsewhere = await signInFrom('203.0.113.8', 'rotating-0@panel.test', 'any-guess')
    expect(elsewhere.status, elsewhere.text).toBe(401)
  })

  it('should share one limit among requests that carry no client address', { timeout: 30_000 }, async () => {
    for (let i = 0; i < 30; i++) {
      const res = await send('/api/rpc/auth.login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `anon-${i}@panel.test`, password: 'any-guess' }),
      })
      expect(res.status, res.text).toBe(401)
    }
    const res = await send('/api/rpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'anon-last@panel.test', password: 'any-guess' }),
    })
    expect(res.status, res.text).toBe(429)
  })
})

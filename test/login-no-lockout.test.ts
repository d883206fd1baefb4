import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import worker from '../src/index'
import { type Caller, type CallResult, call, ok, send } from './helpers/http'
import { adminSession, BOOTSTRAP } from './helpers/principals'

// Off Cloudflare's edge, with no trusted header named, every caller in this file is the one unknown client.
// The tests run in order and share its budgets; each says what it leaves spent.

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function timed(send: () => Promise<CallResult>): Promise<CallResult & { ms: number }> {
  const started = Date.now()
  const result = await send()
  return { ...result, ms: Date.now() - started }
}

function tally(results: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1
  return counts
}

/** A sign-in straight to the Worker with TRUSTED_CLIENT_IP_HEADER set to `x-real-ip`. */
async function signInBehindProxy(realIp: string, email: string, password: string): Promise<number> {
  const ctx = createExecutionContext()
  const response = await worker.fetch(
    new Request('https://panel.test/api/rpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-real-ip': realIp },
      body: JSON.stringify({ email, password }),
    }),
    { ...env, TRUSTED_CLIENT_IP_HEADER: 'X-Real-IP' },
    ctx,
  )
  await response.body?.cancel()
  await waitOnExecutionContext(ctx)
  return response.status
}

describe('TRUSTED_CLIENT_IP_HEADER', () => {
  it('should ignore the header while it is not set: every caller is the one unknown client', {
    timeout: 30_000,
  }, async () => {
    // Leaves 10 failures on the unknown client's budget.
    const email = 'unset-header@panel.test'
    await ok('users.create', { email, password: 'unset-header-password', role: 'operator' }, admin)
    const withRealIp = (realIp: string, password: string) =>
      timed(() =>
        send('/api/rpc/auth.login', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-real-ip': realIp },
          body: JSON.stringify({ email, password }),
        }),
      )
    for (let i = 0; i < 10; i++) {
      const res = await withRealIp(`198.18.1.${i}`, `wrong-${i}-password`)
      expect(res.status, res.text).toBe(401)
    }
    const otherAddress = await withRealIp('198.18.1.99', 'another-wrong-password')
    expect(otherAddress.status, otherAddress.text).toBe(429)
    expect(otherAddress.ms).toBeGreaterThanOrEqual(1900)
  })

  it('should tell clients apart by the named header when it is set, the last entry of a list', {
    timeout: 30_000,
  }, async () => {
    const email = 'behind-proxy@panel.test'
    await ok('users.create', { email, password: 'behind-proxy-password', role: 'operator' }, admin)
    for (let i = 0; i < 10; i++)
      expect(await signInBehindProxy('192.0.2.50', email, `wrong-${i}-pw`)).toBe(401)
    expect(await signInBehindProxy('192.0.2.50', email, 'wrong-again-pw')).toBe(429)
    // Another address has a budget of its own; a list's earlier entries are the client's to choose.
    expect(await signInBehindProxy('192.0.2.51', email, 'wrong-from-b-pw')).toBe(401)
    expect(await signInBehindProxy('192.0.2.51, 192.0.2.50', email, 'wrong-again-pw')).toBe(429)
    expect(await signInBehindProxy('192.0.2.50, 192.0.2.52', email, 'wrong-from-c-pw')).toBe(401)
  })
})

describe('a stranger cannot lock anyone out off the edge', () => {
  it('should sign a user in with the right password within 3 s after 10 failures on that email', {
    timeout: 30_000,
  }, async () => {
    // Leaves 20 failures on the unknown client's budget.
    const email = 'known-account@panel.test'
    await ok('users.create', { email, password: 'known-account-password', role: 'operator' }, admin)
    for (let i = 0; i < 10; i++) {
      const res = await call('auth.login', { email, password: `stranger-${i}-guess` })
      expect(res.status, res.text).toBe(401)
    }
    const right = await timed(() => call('auth.login', { email, password: 'known-account-password' }))
    expect(right.status, right.text).toBe(200)
    expect(right.ms).toBeLessThan(3000)
  })

  it('should sign the admin in with the right password within 3 s after 35 failed sign-ins, slowing only the wrong ones', {
    timeout: 60_000,
  }, async () => {
    const failures: (CallResult & { ms: number })[] = []
    for (let wave = 0; wave < 5; wave++) {
      failures.push(
        ...(await Promise.all(
          Array.from({ length: 7 }, (_, i) =>
            timed(() => call('auth.login', { email: `stranger-${wave}-${i}@panel.test`, password: 'guess' })),
          ),
        )),
      )
    }
    const counts = tally(failures)
    expect(counts[401], JSON.stringify(counts)).toBe(10)
    expect(counts[429], JSON.stringify(counts)).toBe(25)
    for (const slowed of failures.filter((r) => r.status === 429)) {
      expect(slowed.ms).toBeGreaterThanOrEqual(1900)
      expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((slowed.body as { detail: string }).detail).toMatch(/^the email or password is wrong;/)
    }
    const right = await timed(() => call('auth.login', BOOTSTRAP))
    expect(right.status, right.text).toBe(200)
    expect(right.ms).toBeLessThan(3000)
    // The right password over the budget waits like a wrong one: its timing tells nothing before its answer does.
    expect(right.ms).toBeGreaterThanOrEqual(1900)
    const wrongAfter = await timed(() =>
      call('auth.login', { email: BOOTSTRAP.email, password: 'wrong-guess' }),
    )
    expect(wrongAfter.status, wrongAfter.text).toBe(429)
  })
})

import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, signIn, tokenFor } from './helpers/principals'

let admin: Caller
let users = 0

beforeAll(async () => {
  admin = await adminSession()
})

/** A new operator with a known password, and a session of theirs. */
async function newUser(
  role: 'admin' | 'operator' = 'operator',
): Promise<{ email: string; id: string; session: Caller }> {
  const email = `changer${++users}@panel.test`
  const password = 'first-password-123'
  const { id } = await ok<{ id: string }>('users.create', { email, password, role }, admin)
  return { email, id, session: { cookie: await signIn(email, password) } }
}

async function audited(userId: string) {
  const rows = await env.DB.prepare(
    "SELECT outcome, principal_kind AS kind FROM audit_log WHERE action = 'user.change-password' AND target_id = ? ORDER BY id",
  )
    .bind(userId)
    .all<{ outcome: string; kind: string }>()
  return rows.results
}

describe('auth.changePassword', () => {
  it("should change the password, end the user's other sessions and keep this one and their API tokens", async () => {
    const user = await newUser('admin')
    const otherSession = { cookie: await signIn(user.email, 'first-password-123') }
    const token = await tokenFor(user.session, ['probes:view'])
    const res = await call(
      'auth.changePassword',
      { currentPassword: 'first-password-123', newPassword: 'second-password-456' },
      user.session,
    )
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ changed: true })
    expect((await call('auth.me', {}, user.session)).status).toBe(200)
    const other = await call('auth.me', {}, otherSession)
    expect(other.status, other.text).toBe(401)
    expect((await call('auth.me', {}, token)).status).toBe(200)
    expect((await call('auth.login', { email: user.email, password: 'first-password-123' })).status).toBe(401)
    expect((await call('auth.login', { email: user.email, password: 'second-password-456' })).status).toBe(
      200,
    )
    expect(await audited(user.id)).toEqual([{ outcome: 'success', kind: 'session' }])
  })

  it('should refuse a wrong current password with 400 naming the field, change nothing, and audit the failure', async () => {
    const user = await newUser()
    const res = await call(
      'auth.changePassword',
      { currentPassword: 'not-my-password', newPassword: 'second-password-456' },
      user.session,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      issues: [{ path: 'currentPassword', message: 'is not your current password' }],
    })
    expect((await call('auth.login', { email: user.email, password: 'first-password-123' })).status).toBe(200)
    expect(await audited(user.id)).toEqual([{ outcome: 'failure', kind: 'session' }])
  })

  it('should count wrong current passwords against the sign-in budget of that email and client, slowing them, never refusing the right one', {
    timeout: 60_000,
  }, async () => {
    const user = await newUser()
    const guess = (i: number) =>
      call(
        'auth.changePassword',
        { currentPassword: `guess-${i}-password`, newPassword: 'second-password-456' },
        user.session,
      )
    const failures = []
    for (let wave = 0; wave < 5; wave++)
      failures.push(...(await Promise.all(Array.from({ length: 7 }, (_, i) => guess(wave * 7 + i)))))
    // 10 are checked at once (400 naming the field, audited); the other 25 wait 2 s each and get 429.
    const statuses = failures.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 400)).toHaveLength(10)
    expect(statuses.filter((s) => s === 429)).toHaveLength(25)
    expect(Number(failures.find((r) => r.status === 429)?.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await audited(user.id)).toHaveLength(10)
    const wrongSignIn = await call('auth.login', { email: user.email, password: 'guess-36-password' })
    expect(wrongSignIn.status, wrongSignIn.text).toBe(429)
    const started = Date.now()
    const right = await call(
      'auth.changePassword',
      { currentPassword: 'first-password-123', newPassword: 'second-password-456' },
      user.session,
    )
    expect(right.status, right.text).toBe(200)
    expect(Date.now() - started).toBeLessThan(3000)
    const signIn = await call('auth.login', { email: user.email, password: 'second-password-456' })
    expect(signIn.status, signIn.text).toBe(200)
  })

  it('should hold the new password to the rules of users.create and refuse reusing the current one', async () => {
    const user = await newUser()
    const short = await call(
      'auth.changePassword',
      { currentPassword: 'first-password-123', newPassword: 'short' },
      user.session,
    )
    expect(short.status, short.text).toBe(400)
    expect(short.body).toMatchObject({ issues: [{ path: 'newPassword' }] })
    const same = await call(
      'auth.changePassword',
      { currentPassword: 'first-password-123', newPassword: 'first-password-123' },
      user.session,
    )
    expect(same.status, same.text).toBe(400)
    expect(same.body).toMatchObject({ issues: [{ path: 'newPassword' }] })
    expect(await audited(user.id)).toEqual([])
  })

  it('should refuse API tokens (403) and callers without a credential (401)', async () => {
    const user = await newUser('admin')
    const token = await tokenFor(user.session, ['probes:view'])
    const input = { currentPassword: 'first-password-123', newPassword: 'second-password-456' }
    const byToken = await call('auth.changePassword', input, token)
    expect(byToken.status, byToken.text).toBe(403)
    const anonymous = await call('auth.changePassword', input, {})
    expect(anonymous.status, anonymous.text).toBe(401)
    expect((await call('auth.login', { email: user.email, password: 'first-password-123' })).status).toBe(200)
  })

  it('should let only one of two simultaneous changes win', async () => {
    const user = await newUser()
    const second = { cookie: await signIn(user.email, 'first-password-123') }
    const [a, b] = await Promise.all([
      call(
        'auth.changePassword',
        { currentPassword: 'first-password-123', newPassword: 'password-of-a-1' },
        user.session,
      ),
      call(
        'auth.changePassword',
        { currentPassword: 'first-password-123', newPassword: 'password-of-b-2' },
        second,
      ),
    ])
    const statuses = [a?.status, b?.status].sort()
    expect(
      statuses.filter((s) => s === 200),
      `${a?.text} ${b?.text}`,
    ).toHaveLength(1)
    const winner = a?.status === 200 ? 'password-of-a-1' : 'password-of-b-2'
    const loser = winner === 'password-of-a-1' ? 'password-of-b-2' : 'password-of-a-1'
    expect([400, 401, 409]).toContain(statuses.find((s) => s !== 200))
    expect((await call('auth.login', { email: user.email, password: winner })).status).toBe(200)
    expect((await call('auth.login', { email: user.email, password: loser })).status).toBe(401)
  })
})

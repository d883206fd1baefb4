import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { call, ORIGIN } from './helpers/http'
import { adminSession, BOOTSTRAP, operatorSession, signIn, tokenFor } from './helpers/principals'

describe('auth.login', () => {
  it('should create the bootstrap admin on first sign-in and set a hardened session cookie', async () => {
    const res = await call<{ user: { email: string; role: string } }>('auth.login', BOOTSTRAP, {
      origin: ORIGIN,
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.user).toMatchObject({ email: BOOTSTRAP.email, role: 'admin' })
    const cookie = res.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/^__Host-panel_session=[\w-]{40,};/)
    for (const attribute of ['Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=604800']) {
      expect(cookie).toContain(attribute)
    }
    const sessionId = cookie.split(';')[0]?.split('=')[1] ?? ''
    const stored = await env.DB.prepare('SELECT id_hash FROM sessions').all<{ id_hash: string }>()
    expect(stored.results.length).toBeGreaterThan(0)
    expect(stored.results.map((r) => r.id_hash)).not.toContain(sessionId)
  })

  it('should answer 401 without saying whether the email or the password was wrong', async () => {
    const wrongPassword = await call('auth.login', { email: BOOTSTRAP.email, password: 'not-the-password' })
    const wrongEmail = await call('auth.login', { email: 'nobody@panel.test', password: 'not-the-password' })
    expect(wrongPassword.status, wrongPassword.text).toBe(401)
    expect(wrongEmail.status, wrongEmail.text).toBe(401)
    expect((wrongPassword.body as { detail: string }).detail).toBe(
      (wrongEmail.body as { detail: string }).detail,
    )
  })

  it('should answer the 11th failure on one email from one client within 15 minutes with 429 and Retry-After, yet let the right password in', {
    timeout: 30_000,
  }, async () => {
    const email = 'throttled@panel.test'
    const admin = await adminSession()
    await call('users.create', { email, password: 'throttled-password', role: 'operator' }, admin)
    for (let i = 0; i < 10; i++) {
      const res = await call('auth.login', { email, password: `wrong-${i}-password` })
      expect(res.status, res.text).toBe(401)
    }
    const slowed = await call('auth.login', { email, password: 'wrong-again-password' })
    expect(slowed.status, slowed.text).toBe(429)
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(slowed.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60)
    const right = await call('auth.login', { email, password: 'throttled-password' })
    expect(right.status, right.text).toBe(200)
    const other = await call('auth.login', BOOTSTRAP)
    expect(other.status, other.text).toBe(200)
  })

  it('should refuse a sign-in posted from another origin', async () => {
    const res = await call('auth.login', BOOTSTRAP, { origin: 'https://evil.test' })
    expect(res.status, res.text).toBe(403)
  })
})

describe('session cookies', () => {
  it('should require the panel Origin on state-changing cookie requests', async () => {
    const admin = await adminSession()
    const input = { instanceId: 'x', name: 'site' }
    const missing = await call('sites.create', input, { ...admin, origin: null })
    expect(missing.status, missing.text).toBe(403)
    const foreign = await call('sites.create', input, { ...admin, origin: 'https://evil.test' })
    expect(foreign.status, foreign.text).toBe(403)
    const own = await call('sites.create', input, admin)
    expect(own.status, own.text).toBe(404)
    const read = await call('nodes.list', {}, { ...admin, origin: null })
    expect(read.status, read.text).toBe(200)
  })

  it('should end the session on logout', async () => {
    const admin = await adminSession()
    const out = await call('auth.logout', {}, admin)
    expect(out.status, out.text).toBe(200)
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0')
    const after = await call('auth.me', {}, admin)
    expect(after.status, after.text).toBe(401)
  })

  it('should reject an expired session', async () => {
    const admin = await adminSession()
    await env.DB.prepare('UPDATE sessions SET expires_at = ?')
      .bind(Date.now() - 1)
      .run()
    const res = await call('auth.me', {}, admin)
    expect(res.status, res.text).toBe(401)
  })
})

describe('auth.me', () => {
  it('should show a session principal with its role permissions', async () => {
    const admin = await adminSession()
    const operator = await operatorSession(admin)
    const me = await call<{ kind: string; user: { role: string }; permissions: string[] }>(
      'auth.me',
      {},
      operator,
    )
    expect(me.status, me.text).toBe(200)
    expect(me.body.kind).toBe('session')
    expect(me.body.user.role).toBe('operator')
    expect(me.body.permissions.every((p) => p.endsWith(':view'))).toBe(true)
    expect(me.body.permissions).toContain('fleet:view')
  })

  it("should show a token's effective permissions shrinking when its creator is demoted", async () => {
    const admin = await adminSession()
    await call(
      'users.create',
      { email: 'creator@panel.test', password: 'creator-password', role: 'admin' },
      admin,
    )
    const creator = { cookie: await signIn('creator@panel.test', 'creator-password') }
    const token = await tokenFor(creator, ['fleet:view', 'fleet:manage'])
    const before = await call<{ permissions: string[]; user: { id: string } }>('auth.me', {}, token)
    expect(before.body.permissions).toEqual(['fleet:manage', 'fleet:view'])
    await call('users.update', { id: before.body.user.id, role: 'operator' }, admin)
    const after = await call<{ permissions: string[] }>('auth.me', {}, token)
    expect(after.body.permissions).toEqual(['fleet:view'])
    const write = await call('nodes.remove', { id: 'x' }, token)
    expect(write.status, write.text).toBe(403)
  })

  it('should answer 401 to a malformed Authorization header or an unknown token', async () => {
    expect((await call('auth.me', {}, { token: 'pat_unknown' })).status).toBe(401)
    const res = await call('auth.me', {}, { token: 'not-a-panel-token' })
    expect(res.status, res.text).toBe(401)
  })
})

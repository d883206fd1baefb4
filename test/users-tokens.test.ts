import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession, signIn, tokenFor } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

describe('users', () => {
  it('should create, list newest first, and refuse a duplicate email', async () => {
    const a = await ok<{ id: string }>(
      'users.create',
      { email: 'A@panel.test', password: 'password-aaaa', role: 'operator' },
      admin,
    )
    const b = await ok<{ id: string }>(
      'users.create',
      { email: 'b@panel.test', password: 'password-bbbb', role: 'admin' },
      admin,
    )
    const list = await ok<{ id: string; email: string }[]>('users.list', {}, admin)
    expect(list.map((u) => u.id).slice(0, 2)).toEqual([b.id, a.id])
    expect(list.find((u) => u.id === a.id)?.email).toBe('a@panel.test')
    const dup = await call(
      'users.create',
      { email: 'a@panel.test', password: 'password-cccc', role: 'operator' },
      admin,
    )
    expect(dup.status, dup.text).toBe(409)
    expect(JSON.stringify(list)).not.toContain('pbkdf2')
  })

  it('should refuse a password shorter than 12 characters, naming the field', async () => {
    const res = await call<{ issues: { path: string }[] }>(
      'users.create',
      { email: 'short@panel.test', password: 'short', role: 'operator' },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues.map((i) => i.path)).toEqual(['password'])
  })

  it('should never demote or remove the last admin', async () => {
    const fresh = await ok<{ id: string }[]>('users.list', {}, admin)
    for (const user of fresh) {
      if (user.id !== (await ok<{ user: { id: string } }>('auth.me', {}, admin)).user.id) {
        await call('users.remove', { id: user.id }, admin)
      }
    }
    const me = await ok<{ user: { id: string } }>('auth.me', {}, admin)
    const demote = await call('users.update', { id: me.user.id, role: 'operator' }, admin)
    expect(demote.status, demote.text).toBe(409)
    const remove = await call('users.remove', { id: me.user.id }, admin)
    expect(remove.status, remove.text).toBe(409)
    expect((await ok<{ role: string }[]>('users.list', {}, admin)).map((u) => u.role)).toEqual(['admin'])
  })

  it("should end a user's sessions when their password changes, and 404 an unknown user", async () => {
    const op = await operatorSession(admin)
    await ok('users.update', { id: op.userId, password: 'a-brand-new-password' }, admin)
    expect((await call('auth.me', {}, op)).status).toBe(401)
    expect(
      await signIn(
        (await ok<{ id: string; email: string }[]>('users.list', {}, admin)).find((u) => u.id === op.userId)
          ?.email ?? '',
        'a-brand-new-password',
      ),
    ).toMatch(/^__Host-/)
    const missing = await call('users.update', { id: 'nope', role: 'admin' }, admin)
    expect(missing.status, missing.text).toBe(404)
  })

  it("should revoke a removed user's tokens", async () => {
    await ok(
      'users.create',
      { email: 'leaver@panel.test', password: 'leaver-password', role: 'admin' },
      admin,
    )
    const leaver = { cookie: await signIn('leaver@panel.test', 'leaver-password') }
    const token = await tokenFor(leaver, ['fleet:view'])
    const me = await ok<{ user: { id: string } }>('auth.me', {}, token)
    await ok('users.remove', { id: me.user.id }, admin)
    expect((await call('auth.me', {}, token)).status).toBe(401)
    expect((await call('auth.me', {}, leaver)).status).toBe(401)
  })
})

describe('tokens', () => {
  it('should show the token once, store only its SHA-256 hash, and never list it', async () => {
    const created = await ok<{
      id: string
      token: string
      permissions: string[]
      expiresAt: null
      createdAt: string
      name: string
    }>('tokens.create', { name: 'ci', permissions: ['fleet:view'] }, admin)
    expect(created.token).toMatch(/^pat_[\w-]{43}$/)
    expect(Object.keys(created).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'name',
      'permissions',
      'token',
    ])
    const row = await env.DB.prepare('SELECT token_hash FROM api_tokens WHERE id = ?')
      .bind(created.id)
      .first<{ token_hash: string }>()
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(created.token))
    expect(row?.token_hash).toBe(
      [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''),
    )
    const list = await call('tokens.list', {}, admin)
    expect(list.text).not.toContain(created.token)
    expect(list.text).toContain(created.id)
  })

  it('should refuse unknown permissions and a past expiry with 400 naming the field', async () => {
    const unknown = await call<{ issues: { path: string }[] }>(
      'tokens.create',
      { name: 'x', permissions: ['fleet:view', 'root:all'] },
      admin,
    )
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.body.issues[0]?.path).toBe('permissions.1')
    const past = await call<{ issues: { path: string }[] }>(
      'tokens.create',
      { name: 'x', permissions: ['fleet:view'], expiresAt: '2020-01-01T00:00:00Z' },
      admin,
    )
    expect(past.status, past.text).toBe(400)
    expect(past.body.issues[0]?.path).toBe('expiresAt')
  })

  it('should answer 401 after revocation and 403 outside the token scope', async () => {
    const token = await tokenFor(admin, ['fleet:view'])
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    const outside = await call('users.list', {}, token)
    expect(outside.status, outside.text).toBe(403)
    await ok('tokens.revoke', { id: token.tokenId }, admin)
    expect((await call('nodes.list', {}, token)).status).toBe(401)
    expect((await call('tokens.revoke', { id: 'missing' }, admin)).status).toBe(404)
  })

  it('should not let a token mint a token broader than itself', async () => {
    const minter = await tokenFor(admin, ['tokens:manage', 'fleet:view'])
    const broader = await call('tokens.create', { name: 'wider', permissions: ['fleet:manage'] }, minter)
    expect(broader.status, broader.text).toBe(403)
    const narrower = await call('tokens.create', { name: 'narrow', permissions: ['fleet:view'] }, minter)
    expect(narrower.status, narrower.text).toBe(200)
  })
})

import { env } from 'cloudflare:workers'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, signIn } from './helpers/principals'

let admin: Caller
let adminId: string

beforeAll(async () => {
  admin = await adminSession()
  adminId = (await ok<{ user: { id: string } }>('auth.me', {}, admin)).user.id
})

// A failing race must not take the later tests down with it.
beforeEach(async () => {
  await env.DB.prepare("UPDATE users SET role = 'admin' WHERE id = ?").bind(adminId).run()
})

async function adminCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE role = 'admin'").first<{
    n: number
  }>()
  return row?.n ?? 0
}

describe('the last admin under concurrency', () => {
  it('should keep an admin when two admins demote each other at the same moment, the loser getting 409', async () => {
    await ok(
      'users.create',
      { email: 'rival@panel.test', password: 'rival-password-1', role: 'admin' },
      admin,
    )
    const rival = { cookie: await signIn('rival@panel.test', 'rival-password-1') }
    const rivalId = (await ok<{ user: { id: string } }>('auth.me', {}, rival)).user.id
    for (let round = 0; round < 5; round++) {
      expect(await adminCount(), `round ${round}`).toBe(2)
      const [a, b] = await Promise.all([
        call('users.update', { id: rivalId, role: 'operator' }, admin),
        call('users.update', { id: adminId, role: 'operator' }, rival),
      ])
      expect(await adminCount(), `round ${round}: ${a.text} ${b.text}`).toBe(1)
      // The loser either lost the write (409) or arrived after it and is no longer an admin (403).
      const statuses = [a.status, b.status].sort()
      expect(
        [
          [200, 409],
          [200, 403],
        ],
        `round ${round}: ${a.text} ${b.text}`,
      ).toContainEqual(statuses)
      const [winner, demotedId] = a.status === 200 ? [admin, rivalId] : [rival, adminId]
      await ok('users.update', { id: demotedId, role: 'admin' }, winner)
    }
  })

  it('should keep an admin when two admins remove each other at the same moment', async () => {
    for (let round = 0; round < 3; round++) {
      const [x, y] = await Promise.all(
        ['x', 'y'].map(async (name) => {
          const email = `remover-${name}${round}@panel.test`
          const user = await ok<{ id: string }>(
            'users.create',
            { email, password: 'remover-password', role: 'admin' },
            admin,
          )
          return { id: user.id, session: { cookie: await signIn(email, 'remover-password') } }
        }),
      )
      if (!x || !y) throw new Error('two admins expected')
      // Leave exactly the two of them as admins.
      await env.DB.prepare("UPDATE users SET role = 'operator' WHERE id NOT IN (?, ?)").bind(x.id, y.id).run()
      const [a, b] = await Promise.all([
        call('users.remove', { id: y.id }, x.session),
        call('users.remove', { id: x.id }, y.session),
      ])
      expect(await adminCount(), `round ${round}: ${a.text} ${b.text}`).toBe(1)
      // The loser either lost the write (409) or arrived after it, when its own session was gone (401).
      const statuses = [a.status, b.status].sort()
      expect(
        [
          [200, 409],
          [200, 401],
        ],
        `round ${round}: ${a.text} ${b.text}`,
      ).toContainEqual(statuses)
      await env.DB.prepare("UPDATE users SET role = 'admin' WHERE id = ?").bind(adminId).run()
    }
  })
})

describe('users.update lost updates', () => {
  it('should never answer 200 to a change it then loses to a concurrent one', async () => {
    for (let round = 0; round < 3; round++) {
      const email = `racer${round}@panel.test`
      const user = await ok<{ id: string }>(
        'users.create',
        { email, password: 'racer-password-0', role: 'operator' },
        admin,
      )
      const [role, password] = await Promise.all([
        call('users.update', { id: user.id, role: 'admin' }, admin),
        call('users.update', { id: user.id, password: 'racer-password-1' }, admin),
      ])
      expect([role.status, password.status].sort(), `${role.text} ${password.text}`).not.toContain(500)
      const stored = await env.DB.prepare('SELECT role FROM users WHERE id = ?')
        .bind(user.id)
        .first<{ role: string }>()
      if (role.status === 200) expect(stored?.role, `round ${round}`).toBe('admin')
      else expect(role.status, role.text).toBe(409)
      const login = await call('auth.login', { email, password: 'racer-password-1' })
      if (password.status === 200) expect(login.status, `round ${round}: ${login.text}`).toBe(200)
      else expect(password.status, password.text).toBe(409)
    }
  })

  it('should write only the columns it changes', async () => {
    const user = await ok<{ id: string; updatedAt: string }>(
      'users.create',
      { email: 'columns@panel.test', password: 'columns-password', role: 'operator' },
      admin,
    )
    const updated = await ok<{ role: string; updatedAt: string }>(
      'users.update',
      { id: user.id, role: 'admin' },
      admin,
    )
    expect(updated.role).toBe('admin')
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(user.updatedAt))
    expect(
      (await call('auth.login', { email: 'columns@panel.test', password: 'columns-password' })).status,
    ).toBe(200)
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import { PERMISSIONS, rolePermissions } from '../src/auth/permissions'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, tokenFor } from './helpers/principals'

let admin: Caller
let usersOnly: Caller
let operatorLevel: Caller
let otherAdminId: string
let operatorId: string

beforeAll(async () => {
  admin = await adminSession()
  usersOnly = await tokenFor(admin, ['users:manage'])
  operatorLevel = await tokenFor(admin, ['users:manage', ...rolePermissions('operator')])
  otherAdminId = (
    await ok<{ id: string }>(
      'users.create',
      { email: 'other-admin@panel.test', password: 'other-admin-password', role: 'admin' },
      admin,
    )
  ).id
  operatorId = (
    await ok<{ id: string }>(
      'users.create',
      { email: 'plain-operator@panel.test', password: 'plain-operator-password', role: 'operator' },
      admin,
    )
  ).id
})

function expectForbidden(res: { status: number; text: string; body: unknown }, lacking: string) {
  expect(res.status, res.text).toBe(403)
  expect((res.body as { detail: string }).detail).toContain(lacking)
}

describe('users:manage does not make a token an admin', () => {
  it('should refuse to create an admin from a token that lacks admin permissions', async () => {
    const res = await call(
      'users.create',
      { email: 'evil@panel.test', password: 'evil-password-123', role: 'admin' },
      usersOnly,
    )
    expectForbidden(res, 'settings:edit')
    expect(
      (await call('auth.login', { email: 'evil@panel.test', password: 'evil-password-123' })).status,
    ).toBe(401)
  })

  it("should refuse to reset an admin's password, promote to admin, demote or remove an admin", async () => {
    expectForbidden(
      await call('users.update', { id: otherAdminId, password: 'taken-over-by-token' }, usersOnly),
      'tokens:manage',
    )
    expectForbidden(
      await call('users.update', { id: operatorId, role: 'admin' }, operatorLevel),
      'fleet:manage',
    )
    expectForbidden(
      await call('users.update', { id: otherAdminId, role: 'operator' }, operatorLevel),
      'admin',
    )
    expectForbidden(await call('users.remove', { id: otherAdminId }, operatorLevel), 'admin')
    const login = await call('auth.login', {
      email: 'other-admin@panel.test',
      password: 'other-admin-password',
    })
    expect(login.status, login.text).toBe(200)
  })

  it('should refuse even operator-level changes to a token lacking the operator permissions', async () => {
    expectForbidden(
      await call('users.update', { id: operatorId, password: 'new-operator-password' }, usersOnly),
      'fleet:view',
    )
  })

  it('should let a token holding a role in full manage users of that role', async () => {
    const created = await call<{ id: string }>(
      'users.create',
      { email: 'made-by-token@panel.test', password: 'made-by-token-pw', role: 'operator' },
      operatorLevel,
    )
    expect(created.status, created.text).toBe(200)
    const reset = await call(
      'users.update',
      { id: created.body.id, password: 'reset-by-token-pw' },
      operatorLevel,
    )
    expect(reset.status, reset.text).toBe(200)
    const removed = await call('users.remove', { id: created.body.id }, operatorLevel)
    expect(removed.status, removed.text).toBe(200)
  })

  it('should let a full admin token and an admin session do all of it', async () => {
    const full = await tokenFor(admin, [...PERMISSIONS])
    const promoted = await call('users.update', { id: operatorId, role: 'admin' }, full)
    expect(promoted.status, promoted.text).toBe(200)
    const reset = await call('users.update', { id: otherAdminId, password: 'reset-by-admin-pw' }, admin)
    expect(reset.status, reset.text).toBe(200)
  })
})

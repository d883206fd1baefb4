import { beforeAll, describe, expect, it, vi } from 'vitest'
import { type Caller, call, ok, send } from './helpers/http'
import { adminSession, signIn, tokenFor } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

async function auditEntries(action: string, targetId: string) {
  const page = await ok<{ entries: { requestId: string }[] }>('audit.list', { action, targetId }, admin)
  return page.entries
}

interface TokenRow {
  id: string
  parentId: string | null
  revokedAt: string | null
}

describe('tokens.revoke', () => {
  it('should answer 200 again for a revoked token without writing a second audit entry', async () => {
    const token = await tokenFor(admin, ['fleet:view'])
    const results = await Promise.all(
      [1, 2, 3].map(() => call('tokens.revoke', { id: token.tokenId }, admin)),
    )
    for (const res of results) expect(res.status, res.text).toBe(200)
    expect(results.map((r) => r.body)).toEqual([1, 2, 3].map(() => ({ revoked: true })))
    const again = await call('tokens.revoke', { id: token.tokenId }, admin)
    expect(again.status, again.text).toBe(200)
    expect(await auditEntries('token.revoke', token.tokenId)).toHaveLength(1)
  })
})

describe('tokens minted by tokens', () => {
  it('should stop every descendant when an ancestor is revoked, and list them as revoked', async () => {
    const parent = await tokenFor(admin, ['tokens:manage', 'fleet:view'])
    const child = await tokenFor(parent, ['tokens:manage', 'fleet:view'])
    const grandchild = await tokenFor(child, ['fleet:view'])
    const sibling = await tokenFor(admin, ['fleet:view'])
    expect((await call('nodes.list', {}, grandchild)).status).toBe(200)
    await ok('tokens.revoke', { id: parent.tokenId }, admin)
    for (const descendant of [child, grandchild]) {
      const res = await call('auth.me', {}, descendant)
      expect(res.status, res.text).toBe(401)
    }
    expect((await call('auth.me', {}, sibling)).status).toBe(200)
    const rows = await ok<TokenRow[]>('tokens.list', {}, admin)
    const byId = new Map(rows.map((row) => [row.id, row]))
    expect(byId.get(child.tokenId)?.parentId).toBe(parent.tokenId)
    expect(byId.get(grandchild.tokenId)?.parentId).toBe(child.tokenId)
    expect(byId.get(grandchild.tokenId)?.revokedAt).not.toBeNull()
    expect(byId.get(sibling.tokenId)?.parentId).toBeNull()
  })

  it('should stop a descendant when an ancestor expires', async () => {
    const parent = await tokenFor(
      admin,
      ['tokens:manage', 'fleet:view'],
      new Date(Date.now() + 60_000).toISOString(),
    )
    const child = await tokenFor(parent, ['fleet:view'])
    expect((await call('auth.me', {}, child)).status).toBe(200)
    // Time passing: the clock moves past the parent's expiry.
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000)
    try {
      const res = await call('auth.me', {}, child)
      expect(res.status, res.text).toBe(401)
    } finally {
      clock.mockRestore()
    }
  })

  it('should refuse a chain longer than 8 tokens with 403', async () => {
    let minter: Caller = admin
    for (let depth = 1; depth <= 8; depth++) minter = await tokenFor(minter, ['tokens:manage'])
    const res = await call('tokens.create', { name: 'too deep', permissions: ['tokens:manage'] }, minter)
    expect(res.status, res.text).toBe(403)
  })
})

describe('a password change', () => {
  it("should revoke the user's API tokens as well as end their sessions", async () => {
    const user = await ok<{ id: string }>(
      'users.create',
      { email: 'rotated@panel.test', password: 'rotated-password-1', role: 'admin' },
      admin,
    )
    const session = { cookie: await signIn('rotated@panel.test', 'rotated-password-1') }
    const token = await tokenFor(session, ['fleet:view'])
    const minted = await tokenFor(await tokenFor(session, ['tokens:manage', 'fleet:view']), ['fleet:view'])
    await ok('users.update', { id: user.id, password: 'rotated-password-2' }, admin)
    for (const caller of [session, token, minted])
      expect((await call('auth.me', {}, caller)).status).toBe(401)
    const rows = await ok<TokenRow[]>('tokens.list', {}, admin)
    expect(rows.find((row) => row.id === token.tokenId)?.revokedAt).not.toBeNull()
  })
})

describe('request ids', () => {
  it("should answer and audit with the panel's own request id, never one the client chose", async () => {
    const forged = 'forged-correlation-id-0001'
    const token = await tokenFor(admin, ['tokens:manage', 'fleet:view'])
    const res = await send('/api/rpc/tokens.create', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token.token}`,
        'x-request-id': forged,
      },
      body: JSON.stringify({ name: 'rid', permissions: ['fleet:view'] }),
    })
    expect(res.status, res.text).toBe(200)
    const ours = res.headers.get('x-request-id')
    expect(ours).not.toBe(forged)
    expect(ours).toMatch(/^[0-9a-f-]{36}$/)
    const entries = await auditEntries('token.create', (res.body as { id: string }).id)
    expect(entries.map((e) => e.requestId)).toEqual([ours])
  })
})

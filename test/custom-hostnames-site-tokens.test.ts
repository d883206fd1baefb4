import { describe, expect, it, vi } from 'vitest'
import { siteWithToken } from './custom-hostnames/fixture'
import { admin, site, workerEnv } from './custom-hostnames/registration-fixture'
import { call, ok } from './helpers/http'

describe('site tokens', () => {
  it('should keep a site token to its own site and to the five customHostnames procedures', async () => {
    const other = await siteWithToken(admin)
    await ok(
      'customHostnames.register',
      { siteId: other.siteId, hostname: 'a.other-customer.com' },
      other.app,
    )
    for (const name of ['probe', 'status', 'register', 'remove']) {
      const result = await call(
        `customHostnames.${name}`,
        { siteId: other.siteId, hostname: 'a.other-customer.com' },
        site.app,
      )
      expect(result.status, `${name}: ${result.text}`).toBe(403)
    }
    const list = await call('customHostnames.list', { siteId: other.siteId }, site.app)
    expect(list.status, list.text).toBe(403)
    // Refused before the handler: nothing of either site is read (only the token itself is).
    const statements = vi.spyOn(workerEnv.DB, 'prepare')
    await call('customHostnames.status', { siteId: other.siteId, hostname: 'a.other-customer.com' }, site.app)
    const touched = statements.mock.calls
      .map(([query]) => query)
      .filter((q) => /custom_hostname|hostname_claims|"sites"/.test(q))
    expect(touched).toEqual([])
    for (const name of ['auth.me', 'nodes.list', 'sites.tokens.list', 'customHostnames.settings.get']) {
      const result = await call(name, name === 'sites.tokens.list' ? { siteId: site.siteId } : {}, site.app)
      expect(result.status, `${name}: ${result.text}`).toBe(403)
    }
    const mint = await call('sites.tokens.create', { siteId: site.siteId, name: 'child' }, site.app)
    expect(mint.status, mint.text).toBe(403)
  })

  it('should answer 401 once the token is revoked or its site removed', async () => {
    await ok('sites.tokens.revoke', { id: site.app.tokenId }, admin)
    const revoked = await call('customHostnames.list', { siteId: site.siteId }, site.app)
    expect(revoked.status, revoked.text).toBe(401)

    const other = await siteWithToken(admin)
    await ok('sites.remove', { id: other.siteId }, admin)
    const orphan = await call('customHostnames.list', { siteId: other.siteId }, other.app)
    expect(orphan.status, orphan.text).toBe(401)
  })

  it('should refuse to remove a site that still holds custom hostnames', async () => {
    await ok(
      'customHostnames.register',
      { siteId: site.siteId, hostname: 'keep.customer-site.com' },
      site.app,
    )
    const removed = await call('sites.remove', { id: site.siteId }, admin)
    expect(removed.status, removed.text).toBe(409)
    expect(removed.text).toContain('keep.customer-site.com')
  })

  it('should default to both permissions, refuse others, and never show the token again', async () => {
    const narrow = await call(
      'sites.tokens.create',
      { siteId: site.siteId, name: 'wide', permissions: ['fleet:view'] },
      admin,
    )
    expect(narrow.status, narrow.text).toBe(400)
    const viewer = await ok<{ token: string; permissions: string[] }>(
      'sites.tokens.create',
      { siteId: site.siteId, name: 'viewer', permissions: ['custom-hostnames:view'] },
      admin,
    )
    expect(viewer.token).toMatch(/^spat_/)
    const write = await call(
      'customHostnames.register',
      { siteId: site.siteId, hostname: 'x.viewer-customer.com' },
      { token: viewer.token },
    )
    expect(write.status, write.text).toBe(403)
    const listed = await ok<Record<string, unknown>[]>('sites.tokens.list', { siteId: site.siteId }, admin)
    expect(listed).toHaveLength(2)
    for (const row of listed) expect(row).not.toHaveProperty('token')
  })
})

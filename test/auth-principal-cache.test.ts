import { env } from 'cloudflare:workers'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { PRINCIPAL_CACHE_MS } from '../src/auth/principal-cache'
import { siteWithToken } from './custom-hostnames/fixture'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, tokenFor, userSession } from './helpers/principals'

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

afterEach(() => {
  vi.restoreAllMocks()
})

/** The clock `ms` from now for the rest of the test (Date.now is what the guard reads). */
function clockAt(ms: number): void {
  const at = Date.now() + ms
  vi.spyOn(Date, 'now').mockReturnValue(at)
}

// Another isolate's change: straight to D1, so this isolate's memory is not told.
const elsewhere = (statement: string, ...values: unknown[]) =>
  env.DB.prepare(statement)
    .bind(...values)
    .run()

describe('a bearer token read again within the cache time', () => {
  it('should answer from isolate memory without a D1 read', async () => {
    const token = await tokenFor(admin, ['fleet:view'])
    expect((await call('auth.me', {}, token)).status).toBe(200)
    const prepare = vi.spyOn(env.DB, 'prepare')
    const res = await call('auth.me', {}, token)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({ kind: 'token', tokenId: token.tokenId, permissions: ['fleet:view'] })
    expect(prepare).not.toHaveBeenCalled()
  })
})

describe('a revocation', () => {
  it('made on this isolate should refuse the token at the very next request', async () => {
    const token = await tokenFor(admin, ['fleet:view'])
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    await ok('tokens.revoke', { id: token.tokenId }, admin)
    const res = await call('nodes.list', {}, token)
    expect(res.status, res.text).toBe(401)
  })

  it('of a site token on this isolate should refuse it at the very next request', async () => {
    const { siteId, app } = await siteWithToken(admin)
    expect((await call('customHostnames.list', { siteId }, app)).status).toBe(200)
    await ok('sites.tokens.revoke', { id: app.tokenId }, admin)
    const res = await call('customHostnames.list', { siteId }, app)
    expect(res.status, res.text).toBe(401)
  })

  it(`made elsewhere should refuse the token within ${PRINCIPAL_CACHE_MS} ms`, async () => {
    const token = await tokenFor(admin, ['fleet:view'])
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    await elsewhere('UPDATE api_tokens SET revoked_at = ? WHERE id = ?', Date.now(), token.tokenId)
    // Until then this isolate still serves the principal it read: the documented window.
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    clockAt(PRINCIPAL_CACHE_MS)
    const res = await call('nodes.list', {}, token)
    expect(res.status, res.text).toBe(401)
  })

  it('made elsewhere should refuse a change at once, even while a read is still served from the cache', async () => {
    const token = await tokenFor(admin, ['fleet:view', 'fleet:manage'])
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    await elsewhere('UPDATE api_tokens SET revoked_at = ? WHERE id = ?', Date.now(), token.tokenId)
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    const change = await call(
      'nodes.create',
      {
        name: `revoked-${crypto.randomUUID().slice(0, 6)}`,
        agentUrl: 'https://agent.test',
        agentSecret: 'x'.repeat(24),
      },
      token,
    )
    expect(change.status, change.text).toBe(401)
  })

  it('of an ancestor made elsewhere should refuse its descendant within the cache time', async () => {
    const parent = await tokenFor(admin, ['tokens:manage', 'fleet:view'])
    const child = await tokenFor(parent, ['fleet:view'])
    expect((await call('nodes.list', {}, child)).status).toBe(200)
    await elsewhere('UPDATE api_tokens SET revoked_at = ? WHERE id = ?', Date.now(), parent.tokenId)
    clockAt(PRINCIPAL_CACHE_MS)
    expect((await call('nodes.list', {}, child)).status).toBe(401)
  })
})

describe('a permission change', () => {
  async function adminWithFullToken() {
    const session = await userSession(admin, 'admin')
    return { userId: session.userId, token: await tokenFor(session, ['fleet:view', 'fleet:manage']) }
  }
  const create = (name: string) => ({
    name,
    agentUrl: 'https://agent.cache.example.com',
    agentSecret: 'agent-secret-0123456789',
  })

  it('made on this isolate should reach the token at the very next request', async () => {
    const { userId, token } = await adminWithFullToken()
    expect((await call('auth.me', {}, token)).body).toMatchObject({
      permissions: ['fleet:manage', 'fleet:view'],
    })
    await ok('users.update', { id: userId, role: 'operator' }, admin)
    expect((await call('auth.me', {}, token)).body).toMatchObject({ permissions: ['fleet:view'] })
    const res = await call('nodes.create', create(`cache-a-${crypto.randomUUID().slice(0, 6)}`), token)
    expect(res.status, res.text).toBe(403)
  })

  it(`made elsewhere should reach the token within ${PRINCIPAL_CACHE_MS} ms`, async () => {
    const { userId, token } = await adminWithFullToken()
    expect((await call('auth.me', {}, token)).body).toMatchObject({
      permissions: ['fleet:manage', 'fleet:view'],
    })
    await elsewhere("UPDATE users SET role = 'operator' WHERE id = ?", userId)
    expect((await call('auth.me', {}, token)).body).toMatchObject({
      permissions: ['fleet:manage', 'fleet:view'],
    })
    clockAt(PRINCIPAL_CACHE_MS)
    expect((await call('auth.me', {}, token)).body).toMatchObject({ permissions: ['fleet:view'] })
    const res = await call('nodes.create', create(`cache-b-${crypto.randomUUID().slice(0, 6)}`), token)
    expect(res.status, res.text).toBe(403)
  })
})

describe('an expiry inside the cache time', () => {
  it("should end the token's cached principal at the expiry itself", async () => {
    const token = await tokenFor(admin, ['fleet:view'], new Date(Date.now() + 2_000).toISOString())
    expect((await call('nodes.list', {}, token)).status).toBe(200)
    clockAt(2_001)
    expect((await call('nodes.list', {}, token)).status).toBe(401)
  })

  it("should end a descendant's cached principal at its ancestor's expiry", async () => {
    const parent = await tokenFor(
      admin,
      ['tokens:manage', 'fleet:view'],
      new Date(Date.now() + 2_000).toISOString(),
    )
    const child = await tokenFor(parent, ['fleet:view'])
    expect((await call('nodes.list', {}, child)).status).toBe(200)
    clockAt(2_001)
    const res = await call('nodes.list', {}, child)
    expect(res.status, res.text).toBe(401)
  })
})

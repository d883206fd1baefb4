import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { PERMISSIONS, type Permission, rolePermissions } from '../src/auth/permissions'
import { procedures } from '../src/rpc/registry'
import { isGetOnly } from '../src/rpc/transport'
import { siteWithToken } from './custom-hostnames/fixture'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession, signIn, tokenFor } from './helpers/principals'

type Expectation = 'unauthenticated' | 'forbidden' | 'allowed'
interface Case {
  principal: string
  expect(access: string, siteScoped: boolean): Expectation
}

const OPERATOR = rolePermissions('operator')
const callers: Record<string, Caller> = {}
const tokenLacking: Partial<Record<Permission, Caller>> = {}
const tokenHolding: Partial<Record<Permission, Caller>> = {}

// Every procedure gets an input with one unknown field: a caller the guard lets through then meets 400, so the
// matrix never writes anything and "allowed" is observable as "not 401/403". Procedures with a dedicated GET
// route ignore unknown fields (query strings carry cache busters) and answer 200; they are queries, so the
// matrix still writes nothing.
const PROBE_INPUT = { matrixProbe: true }

const needs = (access: string, held: (p: Permission) => boolean): Expectation => {
  if (access === 'public' || access === 'authenticated' || access === 'session') return 'allowed'
  return held(access as Permission) ? 'allowed' : 'forbidden'
}
// An API token never reaches what only a signed-in user's session may call (auth.changePassword).
const tokenNeeds = (access: string, held: (p: Permission) => boolean): Expectation =>
  access === 'session' ? 'forbidden' : needs(access, held)

const cases: Case[] = [
  { principal: 'no credential', expect: (a) => (a === 'public' ? 'allowed' : 'unauthenticated') },
  { principal: 'revoked token', expect: (a) => (a === 'public' ? 'allowed' : 'unauthenticated') },
  { principal: 'expired token', expect: (a) => (a === 'public' ? 'allowed' : 'unauthenticated') },
  { principal: 'operator session', expect: (a) => needs(a, (p) => OPERATOR.has(p)) },
  { principal: 'operator-scoped token', expect: (a) => tokenNeeds(a, (p) => OPERATOR.has(p)) },
  { principal: 'admin session', expect: () => 'allowed' },
  { principal: 'admin token lacking the permission', expect: (a) => tokenNeeds(a, () => false) },
  { principal: 'admin token holding it', expect: (a) => tokenNeeds(a, () => true) },
  // A site token reaches only the customHostnames calls, and only for its own site.
  {
    principal: 'site token of this site',
    expect: (a, siteScoped) =>
      a === 'public' ? 'allowed' : siteScoped ? needs(a, (p) => SITE_TOKEN_PERMISSIONS.has(p)) : 'forbidden',
  },
  { principal: 'site token of another site', expect: (a) => (a === 'public' ? 'allowed' : 'forbidden') },
]
const SITE_TOKEN_PERMISSIONS = new Set<Permission>(['custom-hostnames:view', 'custom-hostnames:manage'])
let siteId = ''

/**
 * What each principal sends: the probe input, plus the site's id for a site token of that site; a site token of
 * another site sends an input that is valid for the site it does not hold, so only the site check can stop it.
 */
function inputFor(principal: string, name: string): Record<string, unknown> {
  if (principal === 'site token of this site') return { ...PROBE_INPUT, siteId }
  if (principal === 'site token of another site' && procedures.get(name)?.siteScoped)
    return name === 'customHostnames.list' ? { siteId } : { siteId, hostname: 'matrix.customer-example.com' }
  return PROBE_INPUT
}

function callerFor(principal: string, access: string): Caller {
  if (principal === 'admin token lacking the permission') {
    return tokenLacking[access as Permission] ?? (callers['admin token'] as Caller)
  }
  if (principal === 'admin token holding it') {
    return tokenHolding[access as Permission] ?? (callers['admin token'] as Caller)
  }
  return callers[principal] as Caller
}

beforeAll(async () => {
  const admin = await adminSession()
  callers['no credential'] = {}
  callers['admin session'] = admin
  callers['operator session'] = await operatorSession(admin)
  callers['admin token'] = await tokenFor(admin, [...PERMISSIONS])
  const ownSite = await siteWithToken(admin)
  siteId = ownSite.siteId
  callers['site token of this site'] = ownSite.app
  callers['site token of another site'] = (await siteWithToken(admin)).app

  const revoked = await tokenFor(admin, [...PERMISSIONS])
  await ok('tokens.revoke', { id: revoked.tokenId }, admin)
  callers['revoked token'] = revoked

  const expired = await tokenFor(admin, [...PERMISSIONS], new Date(Date.now() + 60_000).toISOString())
  // Time passing: the token's expiry moves into the past.
  await env.DB.prepare('UPDATE api_tokens SET expires_at = ? WHERE id = ?')
    .bind(Date.now() - 1000, expired.tokenId)
    .run()
  callers['expired token'] = expired

  // An admin mints a full token and is then demoted: the token shrinks to the operator role.
  const second = await ok<{ id: string }>(
    'users.create',
    { email: 'second-admin@panel.test', password: 'second-admin-password', role: 'admin' },
    admin,
  )
  const secondSession = { cookie: await signIn('second-admin@panel.test', 'second-admin-password') }
  callers['operator-scoped token'] = await tokenFor(secondSession, [...PERMISSIONS])
  await ok('users.update', { id: second.id, role: 'operator' }, admin)

  for (const permission of PERMISSIONS) {
    tokenLacking[permission] = await tokenFor(
      admin,
      PERMISSIONS.filter((p) => p !== permission),
    )
    tokenHolding[permission] = await tokenFor(admin, [permission])
  }
})

// A GET-only procedure has no RPC face (its public GET routes are tested in changelog-feed.test.ts).
const rows = [...procedures]
  .filter(([, proc]) => !isGetOnly(proc))
  .flatMap(([name, proc]) =>
    cases.map((c) => ({
      name,
      access: String(proc.permission),
      principal: c.principal,
      expected: c.expect(String(proc.permission), proc.siteScoped === true),
    })),
  )

describe('permission matrix (generated from the registry)', () => {
  it.each(rows)('$name as $principal should be $expected', async ({ name, access, principal, expected }) => {
    const res = await call<{ code?: string }>(name, inputFor(principal, name), callerFor(principal, access))
    if (expected === 'unauthenticated') expect(res.status, res.text).toBe(401)
    else if (expected === 'forbidden') expect(res.status, res.text).toBe(403)
    else {
      expect(res.status, res.text).not.toBe(401)
      expect(res.status, res.text).not.toBe(403)
      const proc = procedures.get(name)
      if (res.status === 200)
        expect(proc?.kind === 'query' && proc.rest?.method === 'get', res.text).toBe(true)
      else expect(res.body.code, res.text).toBe('validation_failed')
    }
  })
})

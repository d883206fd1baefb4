import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { apiTokens, sessions, users } from '../db/schema/auth'
import { sha256Hex } from '../lib/hash'
import { unauthenticated } from '../rpc/errors'
import { isPermission, type Permission, rolePermissions } from './permissions'
import { ANONYMOUS, type Principal } from './principal'
import { cachedPrincipal, principalGeneration, rememberPrincipal } from './principal-cache'
import { readSessionCookie } from './session-cookie'

export const TOKEN_PREFIX = 'pat_'
export const SITE_TOKEN_PREFIX = 'spat_'

export interface Credentials {
  authorization: string | undefined
  cookie: string | undefined
}

/**
 * Resolves the caller. No credential is anonymous; a credential that does not check out is 401. `reuseCached`:
 * a bearer token's principal may come from this isolate's short cache (reads only: a change always reads the
 * credential afresh, so a revocation committed anywhere stops every change made after it).
 */
export async function authenticate(
  db: Db,
  credentials: Credentials,
  reuseCached: boolean,
  now = Date.now(),
): Promise<Principal> {
  const bearer = credentials.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1]
  if (credentials.authorization !== undefined && !bearer)
    throw unauthenticated('malformed Authorization header')
  if (bearer) return tokenPrincipal(db, bearer, reuseCached, now)
  const session = readSessionCookie(credentials.cookie)
  if (session) return sessionPrincipal(db, session, now)
  return ANONYMOUS
}

async function tokenPrincipal(db: Db, token: string, reuseCached: boolean, now: number): Promise<Principal> {
  if (!token.startsWith(TOKEN_PREFIX) && !token.startsWith(SITE_TOKEN_PREFIX))
    throw unauthenticated('unknown token')
  const tokenHash = await sha256Hex(token)
  const cached = reuseCached ? cachedPrincipal(tokenHash, now) : undefined
  if (cached) return cached
  const readAt = principalGeneration()
  const [row] = await db
    .select({
      id: apiTokens.id,
      permissions: apiTokens.permissions,
      siteId: apiTokens.siteId,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
      ancestorIds: apiTokens.ancestorIds,
      // Read in the same query: an ancestor that is revoked, expired or gone ends this token too.
      deadAncestors: sql<number>`(select count(*) from json_each(${apiTokens.ancestorIds}) as link
        left join ${apiTokens} as ancestor on ancestor.id = link.value
        where ancestor.id is null or ancestor.revoked_at is not null or ancestor.expires_at <= ${now})`,
      // The earliest expiry along the chain: a cached principal never outlives it.
      ancestorsExpireAt: sql<
        number | null
      >`(select min(ancestor.expires_at) from json_each(${apiTokens.ancestorIds}) as link
        join ${apiTokens} as ancestor on ancestor.id = link.value)`,
      userId: users.id,
      email: users.email,
      role: users.role,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(eq(apiTokens.tokenHash, tokenHash))
    .limit(1)
  if (!row || row.revokedAt) throw unauthenticated('the token is unknown or revoked')
  if (row.expiresAt && row.expiresAt.getTime() <= now) throw unauthenticated('the token has expired')
  if (row.deadAncestors > 0)
    throw unauthenticated('a token this one was minted by has been revoked or has expired')
  const held = rolePermissions(row.role)
  const permissions = new Set<Permission>(row.permissions.filter(isPermission).filter((p) => held.has(p)))
  const principal: Principal =
    row.siteId !== null
      ? { kind: 'site-token', tokenId: row.id, userId: row.userId, siteId: row.siteId, permissions }
      : {
          kind: 'token',
          tokenId: row.id,
          ancestorIds: row.ancestorIds,
          userId: row.userId,
          email: row.email,
          role: row.role,
          permissions,
        }
  const until = Math.min(row.expiresAt?.getTime() ?? Infinity, row.ancestorsExpireAt ?? Infinity)
  rememberPrincipal(tokenHash, principal, now, until, readAt)
  return principal
}

async function sessionPrincipal(db: Db, sessionId: string, now: number): Promise<Principal> {
  const idHash = await sha256Hex(sessionId)
  const [row] = await db
    .select({ expiresAt: sessions.expiresAt, userId: users.id, email: users.email, role: users.role })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.idHash, idHash))
    .limit(1)
  if (!row || row.expiresAt.getTime() <= now) throw unauthenticated('the session is unknown or has expired')
  return {
    kind: 'session',
    userId: row.userId,
    email: row.email,
    role: row.role,
    sessionIdHash: idHash,
    permissions: rolePermissions(row.role),
  }
}

import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { sessions, users } from '../db/schema/auth'
import { randomSecret } from '../lib/encoding'
import { sha256Hex } from '../lib/hash'
import { verifyPassword } from '../lib/password'
import { procedure } from '../rpc/define'
import { unauthenticated } from '../rpc/errors'
import { EmailSchema, RoleSchema } from '../users/schemas'
import { ensureBootstrapAdmin } from './bootstrap'
import { changePassword } from './change-password'
import { acquireSignInAttempt } from './login-throttle'
import { PERMISSIONS } from './permissions'
import { SESSION_TTL_MS, sessionCookie } from './session-cookie'

// Verified against when the email is unknown, so both failures take the same time.
const DECOY_HASH = 'pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

const UserSummarySchema = z
  .object({ id: z.string(), email: z.string(), role: RoleSchema })
  .openapi('UserSummary')

export const authProcedures = {
  login: procedure({
    kind: 'mutation',
    permission: 'public',
    audit: 'auth.login',
    summary: 'Sign in with email and password; sets the session cookie',
    input: z.strictObject({ email: EmailSchema, password: z.string().min(1).max(1024) }),
    output: z.object({ user: UserSummarySchema }),
    errors: ['unauthenticated', 'forbidden', 'rate_limited'],
    async handler(input, ctx) {
      const email = input.email.toLowerCase()
      // Over a budget this waits a while: the password is still checked, and the right one signs in.
      const attempt = await acquireSignInAttempt(ctx.env, email, ctx.clientAddress)
      await ensureBootstrapAdmin(ctx.env, ctx.db, ctx.requestId)
      const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1)
      const valid = await verifyPassword(input.password, user?.passwordHash ?? DECOY_HASH)
      if (!user || !valid) {
        attempt.failed()
        await ctx.commit([], { targetId: user?.id ?? null, outcome: 'failure', detail: { email } })
        throw unauthenticated('the email or password is wrong')
      }
      await attempt.succeeded()
      const sessionId = randomSecret()
      const now = Date.now()
      await ctx.commit(
        [
          ctx.db.insert(sessions).values({
            idHash: await sha256Hex(sessionId),
            userId: user.id,
            createdAt: new Date(now),
            expiresAt: new Date(now + SESSION_TTL_MS),
          }),
        ],
        { targetId: user.id },
      )
      ctx.responseHeaders.append('set-cookie', sessionCookie(sessionId, SESSION_TTL_MS / 1000))
      return { user: { id: user.id, email: user.email, role: user.role } }
    },
  }),
  logout: procedure({
    kind: 'mutation',
    permission: 'authenticated',
    audit: 'auth.logout',
    summary: 'End the current session and clear its cookie',
    input: z.strictObject({}),
    output: z.object({ loggedOut: z.literal(true) }),
    async handler(_input, ctx) {
      const { principal } = ctx
      const writes =
        principal.kind === 'session'
          ? [ctx.db.delete(sessions).where(eq(sessions.idHash, principal.sessionIdHash))]
          : []
      await ctx.commit(writes)
      ctx.responseHeaders.append('set-cookie', sessionCookie('', 0))
      return { loggedOut: true as const }
    },
  }),
  changePassword,
  me: procedure({
    kind: 'query',
    permission: 'authenticated',
    summary: 'The calling principal and its effective permissions',
    input: z.strictObject({}),
    output: z
      .object({
        kind: z.enum(['session', 'token', 'site-token']),
        user: UserSummarySchema.nullable(),
        tokenId: z.string().nullable(),
        siteId: z.string().nullable(),
        permissions: z.array(z.enum(PERMISSIONS)),
      })
      .openapi('Me'),
    async handler(_input, { principal }) {
      const permissions = [...principal.permissions].sort()
      switch (principal.kind) {
        case 'session':
          return {
            kind: 'session' as const,
            user: { id: principal.userId, email: principal.email, role: principal.role },
            tokenId: null,
            siteId: null,
            permissions,
          }
        case 'token':
          return {
            kind: 'token' as const,
            user: { id: principal.userId, email: principal.email, role: principal.role },
            tokenId: principal.tokenId,
            siteId: null,
            permissions,
          }
        case 'site-token':
          return {
            kind: 'site-token' as const,
            user: null,
            tokenId: principal.tokenId,
            siteId: principal.siteId,
            permissions,
          }
        case 'anonymous':
          throw unauthenticated('sign in or send a bearer token')
      }
    },
  }),
}

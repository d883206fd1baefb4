import { z } from '@hono/zod-openapi'
import { and, eq, ne } from 'drizzle-orm'
import { commitGuarded, nextUpdatedAt } from '../db/batch-guard'
import { sessions, users } from '../db/schema/auth'
import { hashPassword, verifyPassword } from '../lib/password'
import { procedure } from '../rpc/define'
import { forbidden, invalid, unauthenticated } from '../rpc/errors'
import { PasswordSchema } from '../users/schemas'
import { unchangedSince, whyUserWriteLost, wroteTheUser } from '../users/user-guards'
import { acquireSignInAttempt } from './login-throttle'

/**
 * A signed-in user changes their own password. Only a session may: an API token is a credential the user handed
 * to a machine, which must not be able to take the account over. A wrong current password is a failed sign-in
 * (the same budgets: an audited failure, or a 429 over them); a change ends the user's other sessions and keeps
 * their API tokens.
 */
export const changePassword = procedure({
  kind: 'mutation',
  permission: 'session',
  audit: 'user.change-password',
  summary:
    "Change the signed-in user's own password (a session only, not an API token); the user's other sessions end, this one stays",
  input: z.strictObject({
    currentPassword: z.string().min(1).max(1024),
    newPassword: PasswordSchema,
  }),
  output: z.object({ changed: z.literal(true) }),
  errors: ['rate_limited', 'conflict'],
  async handler(input, ctx) {
    const { principal } = ctx
    if (principal.kind !== 'session') throw forbidden('only a signed-in session may change a password')
    const attempt = await acquireSignInAttempt(ctx.env, principal.email, ctx.clientAddress)
    const [user] = await ctx.db.select().from(users).where(eq(users.id, principal.userId)).limit(1)
    if (!user) throw unauthenticated('the session is unknown or has expired')
    if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
      attempt.failed()
      await ctx.commit([], {
        targetId: user.id,
        outcome: 'failure',
        detail: { reason: 'wrong current password' },
      })
      throw invalid('currentPassword', 'is not your current password')
    }
    await attempt.succeeded()
    if (input.newPassword === input.currentPassword)
      throw invalid('newPassword', 'must differ from the current password')
    const changed = {
      passwordHash: await hashPassword(input.newPassword),
      updatedAt: nextUpdatedAt(user.updatedAt, new Date()),
    }
    await commitGuarded(
      ctx.commit(
        [
          ctx.db.update(users).set(changed).where(unchangedSince(user)),
          wroteTheUser(ctx.db),
          ctx.db
            .delete(sessions)
            .where(and(eq(sessions.userId, user.id), ne(sessions.idHash, principal.sessionIdHash))),
        ],
        { targetId: user.id },
      ),
      () => whyUserWriteLost(ctx.db, user),
    )
    return { changed: true as const }
  },
})

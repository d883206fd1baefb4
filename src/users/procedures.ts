import { z } from '@hono/zod-openapi'
import { and, eq, isNull } from 'drizzle-orm'
import { commitGuarded, nextUpdatedAt } from '../db/batch-guard'
import type { BatchItem } from '../db/client'
import { apiTokens, sessions, users } from '../db/schema/auth'
import { afterCursor, newestFirst, orderTerms, pageInput, rowsOfPage } from '../lib/paging'
import { hashPassword } from '../lib/password'
import { IdInputSchema, IdSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { assertHoldsRole } from './escalation'
import { EmailSchema, PasswordSchema, RoleSchema, UserRowSchema } from './schemas'
import { anotherAdminRemains, unchangedSince, whyUserWriteLost, wroteTheUser } from './user-guards'
import { assertEmailFree, getUser, newUserRecord, toUserRow } from './users'

export const usersProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'users:manage',
    audit: 'user.create',
    summary: 'Create a user with a role whose permissions the caller holds in full',
    input: z.strictObject({ email: EmailSchema, password: PasswordSchema, role: RoleSchema }),
    output: UserRowSchema,
    errors: ['conflict', 'forbidden'],
    async handler(input, ctx) {
      assertHoldsRole(ctx.principal, input.role, `creating an ${input.role}`)
      await assertEmailFree(ctx.db, input.email)
      const user = await newUserRecord(input.email, input.password, input.role)
      await ctx.commit([ctx.db.insert(users).values(user)], {
        targetId: user.id,
        detail: { role: user.role },
      })
      return toUserRow(user)
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'users:manage',
    summary: 'List users, newest first; page with limit and cursor (the id of the last user you hold)',
    input: z.strictObject({ ...pageInput }),
    output: z.array(UserRowSchema),
    async handler(input, ctx) {
      const list = { table: users, id: users.id, order: newestFirst(users, users.createdAt) }
      const rows = await ctx.db
        .select()
        .from(users)
        .where(await afterCursor(ctx.db, list, input.cursor))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return rows.map(toUserRow)
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'users:manage',
    audit: 'user.update',
    summary:
      "Change a user's role or password (409 if the user changed meanwhile); a new password ends the user's sessions and revokes their API tokens",
    input: z.strictObject({
      id: IdSchema,
      role: RoleSchema.optional(),
      password: PasswordSchema.optional(),
    }),
    output: UserRowSchema,
    errors: ['not_found', 'conflict', 'forbidden'],
    async handler(input, ctx) {
      const user = await getUser(ctx.db, input.id)
      assertHoldsRole(ctx.principal, user.role, `changing an ${user.role}`)
      if (input.role) assertHoldsRole(ctx.principal, input.role, `making a user an ${input.role}`)
      const now = nextUpdatedAt(user.updatedAt, new Date())
      const changed = {
        ...(input.role ? { role: input.role } : {}),
        ...(input.password ? { passwordHash: await hashPassword(input.password) } : {}),
        updatedAt: now,
      }
      const guard = input.role === 'operator' ? anotherAdminRemains(user.id) : undefined
      const writes: BatchItem[] = [
        ctx.db
          .update(users)
          .set(changed)
          .where(and(unchangedSince(user), guard)),
        wroteTheUser(ctx.db),
      ]
      if (input.password) {
        writes.push(
          ctx.db.delete(sessions).where(eq(sessions.userId, user.id)),
          ctx.db
            .update(apiTokens)
            .set({ revokedAt: now })
            .where(and(eq(apiTokens.createdBy, user.id), isNull(apiTokens.revokedAt))),
        )
      }
      const updated = { ...user, ...changed }
      await commitGuarded(
        ctx.commit(writes, {
          targetId: user.id,
          detail: { role: updated.role, passwordChanged: input.password !== undefined },
        }),
        () => whyUserWriteLost(ctx.db, user),
      )
      return toUserRow(updated)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'users:manage',
    audit: 'user.remove',
    summary: 'Remove a user whose role the caller holds in full, with their sessions and API tokens',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict', 'forbidden'],
    async handler(input, ctx) {
      const user = await getUser(ctx.db, input.id)
      assertHoldsRole(ctx.principal, user.role, `removing an ${user.role}`)
      await commitGuarded(
        ctx.commit(
          [
            ctx.db.delete(sessions).where(eq(sessions.userId, user.id)),
            ctx.db.delete(apiTokens).where(eq(apiTokens.createdBy, user.id)),
            ctx.db.delete(users).where(and(unchangedSince(user), anotherAdminRemains(user.id))),
            wroteTheUser(ctx.db),
          ],
          { targetId: user.id, detail: { email: user.email } },
        ),
        () => whyUserWriteLost(ctx.db, user),
      )
      return { removed: true as const }
    },
  }),
}

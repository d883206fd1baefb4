import { z } from '@hono/zod-openapi'
import { desc, eq, sql } from 'drizzle-orm'
import type { BatchItem } from '../db/client'
import { apiTokens, sessions, users } from '../db/schema/auth'
import { hashPassword } from '../lib/password'
import { IdInputSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { EmailSchema, PasswordSchema, RoleSchema, UserRowSchema } from './schemas'
import { assertAnotherAdmin, assertEmailFree, getUser, newUserRecord, toUserRow } from './users'

export const usersProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'users:manage',
    audit: 'user.create',
    summary: 'Create a user',
    input: z.strictObject({ email: EmailSchema, password: PasswordSchema, role: RoleSchema }),
    output: UserRowSchema,
    errors: ['conflict'],
    async handler(input, ctx) {
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
    summary: 'List users, newest first',
    input: z.strictObject({}),
    output: z.array(UserRowSchema),
    async handler(_input, ctx) {
      const rows = await ctx.db.select().from(users).orderBy(desc(users.createdAt), desc(sql`rowid`))
      return rows.map(toUserRow)
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'users:manage',
    audit: 'user.update',
    summary: "Change a user's role or password; a new password ends the user's sessions",
    input: z.strictObject({
      id: z.string().min(1),
      role: RoleSchema.optional(),
      password: PasswordSchema.optional(),
    }),
    output: UserRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const user = await getUser(ctx.db, input.id)
      if (user.role === 'admin' && input.role === 'operator') await assertAnotherAdmin(ctx.db, user.id)
      const updated = {
        ...user,
        role: input.role ?? user.role,
        passwordHash: input.password ? await hashPassword(input.password) : user.passwordHash,
        updatedAt: new Date(),
      }
      const writes: BatchItem[] = [ctx.db.update(users).set(updated).where(eq(users.id, user.id))]
      if (input.password) writes.push(ctx.db.delete(sessions).where(eq(sessions.userId, user.id)))
      await ctx.commit(writes, {
        targetId: user.id,
        detail: { role: updated.role, passwordChanged: input.password !== undefined },
      })
      return toUserRow(updated)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'users:manage',
    audit: 'user.remove',
    summary: 'Remove a user, their sessions and their API tokens',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const user = await getUser(ctx.db, input.id)
      if (user.role === 'admin') await assertAnotherAdmin(ctx.db, user.id)
      await ctx.commit(
        [
          ctx.db.delete(sessions).where(eq(sessions.userId, user.id)),
          ctx.db.delete(apiTokens).where(eq(apiTokens.createdBy, user.id)),
          ctx.db.delete(users).where(eq(users.id, user.id)),
        ],
        { targetId: user.id, detail: { email: user.email } },
      )
      return { removed: true as const }
    },
  }),
}

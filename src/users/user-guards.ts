import { and, eq, ne, or, type SQL, sql } from 'drizzle-orm'
import { failUnless } from '../db/batch-guard'
import type { Db } from '../db/client'
import { users } from '../db/schema/auth'
import { conflict, notFound } from '../rpc/errors'

type UserRecord = typeof users.$inferSelect

/** The row as it was read: a write conditioned on it loses to any change made since. */
export function unchangedSince(user: UserRecord): SQL | undefined {
  return and(eq(users.id, user.id), eq(users.updatedAt, user.updatedAt))
}

/** True unless the row is an admin and no other admin exists, evaluated by the write that needs it. */
export function anotherAdminRemains(userId: string): SQL | undefined {
  return or(
    ne(users.role, 'admin'),
    sql`(select count(*) from ${users} as others where others.role = 'admin' and others.id <> ${userId}) > 0`,
  )
}

/** The batch statement after a guarded user write: it fails the whole batch unless that write changed the row. */
export function wroteTheUser(db: Db) {
  // changes() counts the rows the statement just before changed.
  return failUnless(db, sql`changes() = 1`)
}

/** Why a guarded user write changed nothing: 404 if the user is gone, else 409 (changed meanwhile, or last admin). */
export async function whyUserWriteLost(db: Db, read: UserRecord): Promise<Error> {
  const [now] = await db.select().from(users).where(eq(users.id, read.id)).limit(1)
  if (!now) return notFound(`user ${read.id}`)
  if (now.updatedAt.getTime() !== read.updatedAt.getTime())
    return conflict(`user ${read.email} changed meanwhile; read it again and retry`)
  return conflict('the last admin cannot be demoted or removed')
}

import { and, count, eq, ne } from 'drizzle-orm'
import type { Db } from '../db/client'
import { users } from '../db/schema/auth'
import { hashPassword } from '../lib/password'
import { conflict, notFound } from '../rpc/errors'
import type { UserRow } from './schemas'

type UserRecord = typeof users.$inferSelect

export function toUserRow(user: UserRecord): UserRow {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  }
}

export async function getUser(db: Db, id: string): Promise<UserRecord> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1)
  if (!user) throw notFound(`user ${id}`)
  return user
}

/** Refuses a change that would leave the panel without an admin. */
export async function assertAnotherAdmin(db: Db, userId: string): Promise<void> {
  const [row] = await db
    .select({ admins: count() })
    .from(users)
    .where(and(eq(users.role, 'admin'), ne(users.id, userId)))
  if (!row || row.admins === 0) throw conflict('the last admin cannot be demoted or removed')
}

export async function newUserRecord(
  email: string,
  password: string,
  role: UserRecord['role'],
): Promise<UserRecord> {
  const now = new Date()
  return {
    id: crypto.randomUUID(),
    email: email.toLowerCase(),
    passwordHash: await hashPassword(password),
    role,
    createdAt: now,
    updatedAt: now,
  }
}

export async function assertEmailFree(db: Db, email: string): Promise<void> {
  const [taken] = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, email.toLowerCase()))
    .limit(1)
  if (taken) throw conflict(`a user with email ${email} already exists`)
}

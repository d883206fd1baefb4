import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { users } from '../db/schema/auth'
import { hashPassword } from '../lib/password'
import { conflict, notFound } from '../rpc/errors'
import type { UserRow } from './schemas'

type UserRecord = typeof users.$inferSelect

/** The API's view of a user: never the password hash. */
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

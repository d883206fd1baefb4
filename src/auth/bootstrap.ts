import { auditInsert } from '../audit/record'
import type { Db } from '../db/client'
import { users } from '../db/schema/auth'
import type { Env } from '../env'
import { newUserRecord } from '../users/users'
import { ANONYMOUS } from './principal'

/** While no user exists, creates the admin named by BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD. */
export async function ensureBootstrapAdmin(env: Env, db: Db, requestId: string): Promise<void> {
  if (!env.BOOTSTRAP_ADMIN_EMAIL || !env.BOOTSTRAP_ADMIN_PASSWORD) return
  const [existing] = await db.select({ id: users.id }).from(users).limit(1)
  if (existing) return
  const admin = await newUserRecord(env.BOOTSTRAP_ADMIN_EMAIL, env.BOOTSTRAP_ADMIN_PASSWORD, 'admin')
  await db.batch([
    db.insert(users).values(admin).onConflictDoNothing(),
    auditInsert(db, { action: 'user.bootstrap', principal: ANONYMOUS, requestId, targetId: admin.id }),
  ])
}

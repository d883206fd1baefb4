import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountDefaults } from '../db/schema/accounts'

type UsageCheck = (db: Db, accountId: string) => Promise<string[]>

const defaultsUsing: UsageCheck = async (db, accountId) => {
  const rows = await db
    .select({ scope: accountDefaults.scope, scopeId: accountDefaults.scopeId })
    .from(accountDefaults)
    .where(eq(accountDefaults.accountId, accountId))
  return rows.map((row) => `the default of ${row.scope} ${row.scopeId}`)
}

// Every reference that keeps an account from being removed; the domains table adds its check here.
const USAGE_CHECKS: readonly UsageCheck[] = [defaultsUsing]

/** What still uses an account, in words; empty when it may be removed. */
export async function accountUsages(db: Db, accountId: string): Promise<string[]> {
  const found = await Promise.all(USAGE_CHECKS.map((check) => check(db, accountId)))
  return found.flat()
}

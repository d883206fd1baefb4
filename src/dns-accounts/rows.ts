import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import { notFound } from '../rpc/errors'
import { isDnsProvider } from './providers'
import type { AccountRow } from './schemas'

export type AccountRecord = typeof accounts.$inferSelect

/** The public row of an account: the spec's DnsAccountRow for dns, the same minus zoneId for the other kinds. */
export function toAccountRow(account: AccountRecord): AccountRow {
  const common = {
    id: account.id,
    name: account.name,
    apiBaseUrl: account.apiBaseUrl,
    lastTestState: account.lastTestState,
    createdAt: account.createdAt.toISOString(),
    updatedAt: account.updatedAt.toISOString(),
    hasToken: true as const,
  }
  if (isDnsProvider(account.provider))
    return { ...common, provider: account.provider, zoneId: account.zoneId }
  return { ...common, provider: account.provider }
}

export async function getAccount(db: Db, id: string): Promise<AccountRecord> {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, id)).limit(1)
  if (!account) throw notFound(`account ${id}`)
  return account
}

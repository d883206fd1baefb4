import { eq } from 'drizzle-orm'
import type { CronTask } from '../cron/tasks'
import { db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import type { Env } from '../env'
import { openSecret } from '../lib/secrets'
import { checkAccount } from './check'
import { checkedFields, zoneCacheWrites } from './zone-cache'

/** Re-tests every dns account and refreshes its cached zones; one failing account does not stop the rest. */
async function refreshAllZones(env: Env, now = new Date()): Promise<void> {
  const database = db(env.DB)
  const dnsAccounts = await database.select().from(accounts).where(eq(accounts.kind, 'dns'))
  // One account after another keeps the calls to any single provider account spaced out.
  for (const account of dnsAccounts) {
    try {
      const check = await checkAccount(account, await openSecret(env, account.tokenSealed), now)
      await database.batch([
        database.update(accounts).set(checkedFields(check, now)).where(eq(accounts.id, account.id)),
        ...zoneCacheWrites(database, account.id, check),
      ])
    } catch (error) {
      console.error(`zone refresh of account ${account.id} failed`, error)
    }
  }
}

export const refreshZonesTask: CronTask = {
  name: 'dns-accounts.refresh-zones',
  schedule: '0 * * * *',
  run: (env, scheduledTime) => refreshAllZones(env, new Date(scheduledTime)),
}

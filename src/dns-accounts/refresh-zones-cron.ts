import { eq, sql } from 'drizzle-orm'
import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import type { Env } from '../env'
import { retestAccount } from './retest'

export interface RefreshBudget {
  /** No account is started once this much time has gone since the run began. */
  budgetMs: number
  clock(): number
}

// One account can take a while (10 s per provider call, many pages), so a run stops starting new ones well
// before the next hour; whatever is left goes first next time.
const DEFAULT_BUDGET: RefreshBudget = { budgetMs: 25_000, clock: Date.now }

/**
 * Re-tests the dns accounts and refreshes their cached zones, the longest-untested first, until the budget is
 * spent. Ordering by the last attempt rather than the last success keeps an account whose provider keeps
 * failing from taking every run's budget. One failing account does not stop the rest.
 */
export async function refreshAllZones(
  env: Env,
  now = new Date(),
  { budgetMs, clock }: RefreshBudget = DEFAULT_BUDGET,
): Promise<void> {
  const started = clock()
  const database = db(env.DB)
  const dnsAccounts = await database
    .select()
    .from(accounts)
    .where(eq(accounts.kind, 'dns'))
    .orderBy(sql`json_extract(${accounts.lastTestState}, '$.testedAt')`, accounts.id)
  // One account after another keeps the calls to any single provider account spaced out.
  for (const [done, account] of dnsAccounts.entries()) {
    if (clock() - started >= budgetMs) {
      const left = dnsAccounts.length - done
      console.warn(
        `zone refresh used its ${budgetMs / 1000} s budget; ${left} account(s) wait for the next run`,
      )
      return
    }
    try {
      const retest = await retestAccount(database, env, account, now)
      const [first, ...rest] = retest.writes
      if (first) await database.batch([first, ...rest])
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

import { and, eq, or, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountDefaults, accounts } from '../db/schema/accounts'
import { instances, sites } from '../db/schema/fleet'
import type { AccountKind } from './providers'

/**
 * The read of the account of a kind that applies to a site: its instance's default, else its node's. What
 * `resolveAccount` answers for the site's instance, as one statement that can go in a batch; no row when neither
 * level has one (or the site is gone).
 */
export function siteDefaultAccount(db: Db, kind: AccountKind, siteId: string) {
  const instanceId = sql`(select ${sites.instanceId} from ${sites} where ${sites.id} = ${siteId})`
  const nodeId = sql`(select ${instances.nodeId} from ${instances} where ${instances.id} = ${instanceId})`
  return db
    .select({ account: accounts })
    .from(accountDefaults)
    .innerJoin(accounts, eq(accounts.id, accountDefaults.accountId))
    .where(
      and(
        eq(accountDefaults.kind, kind),
        or(
          and(eq(accountDefaults.scope, 'instance'), eq(accountDefaults.scopeId, instanceId)),
          and(eq(accountDefaults.scope, 'node'), eq(accountDefaults.scopeId, nodeId)),
        ),
      ),
    )
    .orderBy(sql`${accountDefaults.scope} = 'node'`)
    .limit(1)
}

import { and, eq, ne, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountDefaults } from '../db/schema/accounts'
import { customHostnameRecords, customHostnames } from '../db/schema/custom-hostnames'
import { domains } from '../db/schema/domains'

// A custom hostname uses the account while it writes through it or the panel's records there are not yet gone.
const hostnamesUsing = (accountId: string): SQL =>
  sql`${customHostnames.id} in (
    select ${customHostnames.id} from ${customHostnames}
      where ${customHostnames.writerKind} = 'connected' and ${customHostnames.writerId} = ${accountId}
    union select ${customHostnameRecords.ownerId} from ${customHostnameRecords}
      where ${customHostnameRecords.via} = 'connected' and ${customHostnameRecords.writerId} = ${accountId})`

const domainsUsing = (accountId: string) =>
  and(eq(domains.writerId, accountId), ne(domains.driver, 'selfhosted'), ne(domains.driver, 'manual'))

/** What still uses an account, in words; empty when it may be removed. */
export async function accountUsages(db: Db, accountId: string): Promise<string[]> {
  const [defaults, hostnames, attached] = await db.batch([
    db
      .select({ scope: accountDefaults.scope, scopeId: accountDefaults.scopeId })
      .from(accountDefaults)
      .where(eq(accountDefaults.accountId, accountId)),
    db
      .select({ hostname: customHostnames.hostname })
      .from(customHostnames)
      .where(hostnamesUsing(accountId))
      .limit(20),
    db.select({ hostname: domains.hostname }).from(domains).where(domainsUsing(accountId)).limit(20),
  ])
  return [
    ...defaults.map((row) => `the default of ${row.scope} ${row.scopeId}`),
    ...hostnames.map((row) => `the custom hostname ${row.hostname}`),
    ...attached.map((row) => `the domain ${row.hostname}`),
  ]
}

/** Holds while nothing uses the account: guards the remove's batch against a use that arrives meanwhile. */
export function unused(accountId: string): SQL {
  return sql`not exists (select 1 from ${accountDefaults} where ${accountDefaults.accountId} = ${accountId})
    and not exists (select 1 from ${customHostnames} where ${hostnamesUsing(accountId)})
    and not exists (select 1 from ${domains} where ${domainsUsing(accountId)})`
}

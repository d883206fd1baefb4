import { and, eq, type SQL, sql } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { accounts, accountZones } from '../db/schema/accounts'
import { normalizeDnsName } from '../outside/dns-providers/records'
import type { AccountCheck } from './check'

// Zones travel as one JSON parameter per statement; this many keeps each far below D1's 2 MB value limit.
const ZONES_PER_INSERT = 1000

export interface ZoneHolder {
  accountId: string
  accountName: string
  provider: string
  zoneId: string
  zoneName: string
}

/** The account fields a check sets: its test state, and the refresh time when its zones were (re)listed. */
export function checkedFields(check: AccountCheck, now: Date) {
  if (check.zones) return { lastTestState: check.state, zonesRefreshedAt: now }
  if (check.dropCachedZones) return { lastTestState: check.state, zonesRefreshedAt: null }
  return { lastTestState: check.state }
}

/**
 * The writes that bring an account's cached zones in line with a check: replaced on success, dropped when the
 * failure proves them wrong, kept as they were on a passing failure (rate limit, provider down). Each write
 * takes effect only if `onlyIf` holds when the batch runs.
 */
export function zoneCacheWrites(
  db: Db,
  accountId: string,
  check: AccountCheck,
  onlyIf: SQL = sql`1`,
): BatchItem[] {
  if (!check.zones && !check.dropCachedZones) return []
  const writes: BatchItem[] = [
    db.delete(accountZones).where(and(eq(accountZones.accountId, accountId), onlyIf)),
  ]
  const zones = check.zones ?? []
  for (let i = 0; i < zones.length; i += ZONES_PER_INSERT) {
    const batch = JSON.stringify(zones.slice(i, i + ZONES_PER_INSERT))
    writes.push(
      db
        .insert(accountZones)
        .select(
          db
            .select({
              accountId: sql<string>`${accountId}`.as('account_id'),
              zoneName: sql<string>`json_extract(value, '$.name')`.as('zone_name'),
              zoneId: sql<string>`json_extract(value, '$.id')`.as('zone_id'),
            })
            .from(sql`json_each(${batch})`)
            .where(onlyIf),
        )
        .onConflictDoNothing(),
    )
  }
  return writes
}

const holderColumns = {
  accountId: accountZones.accountId,
  accountName: accounts.name,
  provider: accounts.provider,
  zoneId: accountZones.zoneId,
  zoneName: accountZones.zoneName,
}

/**
 * Every dns account whose cached zones include `zoneName` (one indexed lookup on the zone name). It answers the
 * query itself, so awaiting it gives the holders and `toSQL()` shows exactly what runs.
 */
export function accountsHoldingZone(db: Db, zoneName: string) {
  return db
    .select(holderColumns)
    .from(accountZones)
    .innerJoin(accounts, eq(accounts.id, accountZones.accountId))
    .where(eq(accountZones.zoneName, normalizeDnsName(zoneName)))
    .orderBy(accountZones.accountId)
}

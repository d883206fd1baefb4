import { eq, inArray } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { accounts, accountZones } from '../db/schema/accounts'
import { normalizeDnsName } from '../outside/dns-providers/records'
import type { AccountCheck } from './check'

// D1 binds at most 100 parameters per statement; three columns per row.
const ROWS_PER_INSERT = 30

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
 * failure proves them wrong, kept as they were on a passing failure (rate limit, provider down).
 */
export function zoneCacheWrites(db: Db, accountId: string, check: AccountCheck): BatchItem[] {
  if (!check.zones && !check.dropCachedZones) return []
  const writes: BatchItem[] = [db.delete(accountZones).where(eq(accountZones.accountId, accountId))]
  const rows = (check.zones ?? []).map((zone) => ({ accountId, zoneName: zone.name, zoneId: zone.id }))
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    writes.push(
      db
        .insert(accountZones)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
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

/** Every dns account whose cached zones include `zoneName` (one indexed lookup on the zone name). */
export async function accountsHoldingZone(db: Db, zoneName: string): Promise<ZoneHolder[]> {
  return db
    .select(holderColumns)
    .from(accountZones)
    .innerJoin(accounts, eq(accounts.id, accountZones.accountId))
    .where(eq(accountZones.zoneName, normalizeDnsName(zoneName)))
    .orderBy(accountZones.accountId)
}

/** The accounts holding the zone of a hostname: its longest suffix that any account holds, or none. */
export async function accountsHoldingHostname(db: Db, hostname: string): Promise<ZoneHolder[]> {
  const labels = normalizeDnsName(hostname).split('.')
  const suffixes = labels.map((_, i) => labels.slice(i).join('.'))
  const rows = await db
    .select(holderColumns)
    .from(accountZones)
    .innerJoin(accounts, eq(accounts.id, accountZones.accountId))
    .where(inArray(accountZones.zoneName, suffixes))
    .orderBy(accountZones.accountId)
  const longest = Math.max(0, ...rows.map((row) => row.zoneName.length))
  return rows.filter((row) => row.zoneName.length === longest)
}

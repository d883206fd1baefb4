import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import type { Env } from '../env'
import { reconcileNodeOfHostname } from '../routes/reconcile-node'
import { RESOLVES_CACHE_MS, RESOLVES_WAIT_MS, resolvesToPlan } from './resolves'
import type { CustomHostnameRecord } from './rows'

// Stores a lookup's answer for the registration it was made for (a register again may have planned other
// records meanwhile). Says whether it was the first answer that saw the records resolve.
async function storeLookup(db: Db, row: CustomHostnameRecord, looked: Looked): Promise<boolean> {
  const { resolves, dnsCheckedAt } = looked
  const [stored] = await db
    .update(customHostnames)
    .set({
      dnsResolves: resolves,
      dnsCheckedAt,
      ...(resolves
        ? { dnsResolvedAt: sql`coalesce(${customHostnames.dnsResolvedAt}, ${dnsCheckedAt.getTime()})` }
        : {}),
    })
    .where(and(eq(customHostnames.id, row.id), eq(customHostnames.generation, row.generation)))
    .returning({ dnsResolvedAt: customHostnames.dnsResolvedAt })
  return row.dnsResolvedAt === null && stored?.dnsResolvedAt?.getTime() === dnsCheckedAt.getTime()
}

export interface Looked {
  resolves: boolean
  dnsCheckedAt: Date
}

/**
 * Stores a lookup made off a status call (the stale sweep's), as status stores its own; the first that sees the
 * records resolve pushes the node's edge state again.
 */
export async function storeDnsCheck(
  db: Db,
  env: Env,
  row: CustomHostnameRecord,
  looked: Looked,
): Promise<void> {
  if (await storeLookup(db, row, looked)) await reconcileNodeOfHostname(env, db, row.hostname)
}

/** The row as the store leaves it (the first time the records resolve is kept). */
function withLookup(row: CustomHostnameRecord, { resolves, dnsCheckedAt }: Looked): CustomHostnameRecord {
  const dnsResolvedAt = row.dnsResolvedAt ?? (resolves ? dnsCheckedAt : null)
  return { ...row, dnsResolves: resolves, dnsCheckedAt, dnsResolvedAt }
}

/**
 * The row with a DNS answer no older than the cache time. A fresh lookup is awaited for at most a second; a
 * slower resolver shows `resolves: false` checked now (never an older answer, which may have been true). The
 * answer is stored in the background, off the caller's path (the lookup's outcome is all the answer needs); the
 * first answer that sees the planned records resolve makes the hostname issuable, so the node's edge state is
 * pushed again.
 */
export async function withFreshDnsCheck(
  db: Db,
  env: Env,
  row: CustomHostnameRecord,
  waitUntil: (promise: Promise<unknown>) => void,
  now = Date.now(),
): Promise<CustomHostnameRecord> {
  if (row.dnsCheckedAt && now - row.dnsCheckedAt.getTime() < RESOLVES_CACHE_MS) return row
  const lookup = resolvesToPlan(env.DOH_RESOLVER_URL, row.records).then(
    (resolves): Looked => ({ resolves, dnsCheckedAt: new Date() }),
  )
  waitUntil(
    lookup
      .then((looked) => storeLookup(db, row, looked))
      .then((firstResolved) => (firstResolved ? reconcileNodeOfHostname(env, db, row.hostname) : undefined))
      .catch((error: unknown) => console.error(`storing the DNS check of ${row.hostname} failed`, error)),
  )
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), RESOLVES_WAIT_MS))
  const looked = await Promise.race([lookup, timeout])
  return looked ? withLookup(row, looked) : { ...row, dnsResolves: false, dnsCheckedAt: new Date() }
}

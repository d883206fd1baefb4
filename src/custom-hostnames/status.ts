import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import type { Env } from '../env'
import { reconcileNodeOfHostname } from '../routes/reconcile-node'
import { RESOLVES_CACHE_MS, RESOLVES_WAIT_MS, resolvesToPlan } from './resolves'
import type { CustomHostnameRecord } from './rows'

// Stores a lookup's answer for the registration it was made for (a register again may have planned other
// records meanwhile). Says whether it was the first answer that saw the records resolve.
async function storeLookup(
  db: Db,
  row: CustomHostnameRecord,
  resolves: boolean,
): Promise<{ row: CustomHostnameRecord; firstResolved: boolean }> {
  const dnsCheckedAt = new Date()
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
  const dnsResolvedAt = stored ? stored.dnsResolvedAt : row.dnsResolvedAt
  return {
    row: { ...row, dnsResolves: resolves, dnsCheckedAt, dnsResolvedAt },
    firstResolved: row.dnsResolvedAt === null && dnsResolvedAt?.getTime() === dnsCheckedAt.getTime(),
  }
}

/**
 * The row with a DNS answer no older than the cache time. A fresh lookup is awaited for at most a second; a
 * slower resolver shows `resolves: false` checked now (never an older answer, which may have been true), and the
 * lookup finishes and is stored in the background. The first answer that sees the planned records resolve makes
 * the hostname issuable, so the node's edge state is pushed again.
 */
export async function withFreshDnsCheck(
  db: Db,
  env: Env,
  row: CustomHostnameRecord,
  waitUntil: (promise: Promise<unknown>) => void,
  now = Date.now(),
): Promise<CustomHostnameRecord> {
  if (row.dnsCheckedAt && now - row.dnsCheckedAt.getTime() < RESOLVES_CACHE_MS) return row
  const lookup = resolvesToPlan(env.DOH_RESOLVER_URL, row.records).then((resolves) =>
    storeLookup(db, row, resolves),
  )
  waitUntil(
    lookup.then(({ firstResolved }) =>
      firstResolved ? reconcileNodeOfHostname(env, db, row.hostname) : undefined,
    ),
  )
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), RESOLVES_WAIT_MS))
  const fresh = await Promise.race([lookup, timeout])
  return fresh?.row ?? { ...row, dnsResolves: false, dnsCheckedAt: new Date() }
}

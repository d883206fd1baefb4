import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import type { Env } from '../env'
import { RESOLVES_CACHE_MS, RESOLVES_WAIT_MS, resolvesToPlan } from './resolves'
import type { CustomHostnameRecord } from './rows'

/**
 * The row with a DNS answer no older than the cache time: a fresh lookup is awaited for at most a second; when
 * the resolver is slower the stale answer is shown and the lookup finishes in the background.
 */
export async function withFreshDnsCheck(
  db: Db,
  env: Env,
  row: CustomHostnameRecord,
  waitUntil: (promise: Promise<unknown>) => void,
  now = Date.now(),
): Promise<CustomHostnameRecord> {
  if (row.dnsCheckedAt && now - row.dnsCheckedAt.getTime() < RESOLVES_CACHE_MS) return row
  const lookup = resolvesToPlan(env.DOH_RESOLVER_URL, row.records).then(async (resolves) => {
    const dnsCheckedAt = new Date()
    await db
      .update(customHostnames)
      .set({ dnsResolves: resolves, dnsCheckedAt })
      .where(eq(customHostnames.id, row.id))
    return { ...row, dnsResolves: resolves, dnsCheckedAt }
  })
  waitUntil(lookup)
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), RESOLVES_WAIT_MS))
  return (await Promise.race([lookup, timeout])) ?? row
}

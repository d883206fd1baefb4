import { bareName } from '../lib/dns-name'
import { dohLookup } from '../outside/doh'
import type { PlannedRecord } from './planner'

/** How long a lookup's answer is reused, and how long a status call waits for a fresh one. */
export const RESOLVES_CACHE_MS = 30_000
export const RESOLVES_WAIT_MS = 1_000

/**
 * Whether public DNS already answers the planned records for the hostname: the CNAME to the target, or every
 * planned address. Advisory: any failure of the resolver is a plain false.
 */
export async function resolvesToPlan(resolverUrl: string, records: PlannedRecord[]): Promise<boolean> {
  if (records.length === 0) return false
  try {
    const answers = await Promise.all(
      records.map(async (record) => {
        const found = await dohLookup(resolverUrl, record.name, record.type, RESOLVES_WAIT_MS * 3)
        return found.data.some((data) => bareName(data).toLowerCase() === record.value.toLowerCase())
      }),
    )
    return answers.every(Boolean)
  } catch {
    return false
  }
}

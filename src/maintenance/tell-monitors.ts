import { inArray } from 'drizzle-orm'
import type { Db } from '../db/client'
import { statusPages } from '../db/schema/status-pages'
import type { Env } from '../env'

/** Monitors told at once after one change; past this, the rest read the change within a minute by themselves. */
const MAX_TOLD = 200

/** The probes a window reaches: those it names and those listed on the status pages it names. */
export async function reachedProbes(
  db: Db,
  probeIds: readonly string[],
  statusPageIds: readonly string[],
): Promise<string[]> {
  const pages =
    statusPageIds.length === 0
      ? []
      : await db
          .select({ groups: statusPages.groups })
          .from(statusPages)
          .where(inArray(statusPages.id, [...statusPageIds]))
  const listed = pages.flatMap((page) => page.groups.flatMap((group) => group.probes.map((p) => p.probeId)))
  return [...new Set([...probeIds, ...listed])]
}

/**
 * Tells the monitors of the probes a window reached (before and after a change) to read their windows again.
 * A monitor that cannot be told reads them anyway within a minute, before it judges anything.
 */
export async function tellMonitors(env: Env, probeIds: readonly string[]): Promise<void> {
  const told = probeIds.slice(0, MAX_TOLD)
  const results = await Promise.allSettled(
    told.map((id) => env.PROBE_MONITOR.getByName(id).maintenanceChanged()),
  )
  results.forEach((result, i) => {
    if (result.status === 'rejected')
      console.error(`probe ${told[i]}: telling its monitor of a maintenance change failed`, result.reason)
  })
}

import type { Env } from '../../env'
import { backoffSeconds } from '../../lib/backoff'

/** One zone-sync job to queue: which box to bring up to date for which zone, and when. */
export interface ZoneSyncJob {
  zoneId: string
  nodeId: string
  delaySeconds: number
}

export function syncNow(zoneId: string, nodeId: string): ZoneSyncJob {
  return { zoneId, nodeId, delaySeconds: 0 }
}

/** A box that just missed a change is likely still down: its first try waits one backoff step. */
export function syncAfterFailure(zoneId: string, nodeId: string): ZoneSyncJob {
  return { zoneId, nodeId, delaySeconds: backoffSeconds(1) }
}

/**
 * Queues zone-sync jobs. Called after the change committed, so a queue failure is logged rather than failing
 * the call: the rows stay unsynced and the sweep (sync-sweep-cron.ts) queues them again.
 */
export async function enqueueZoneSync(env: Env, jobs: readonly ZoneSyncJob[]): Promise<void> {
  // A Queue batch holds at most 100 messages.
  for (let i = 0; i < jobs.length; i += 100) {
    const chunk = jobs.slice(i, i + 100)
    try {
      await env.JOBS.sendBatch(
        chunk.map(({ zoneId, nodeId, delaySeconds }) => ({
          body: { type: 'dns.zone-sync' as const, zoneId, nodeId },
          delaySeconds,
        })),
      )
    } catch (error) {
      console.error(`could not queue ${chunk.length} zone-sync jobs; the sweep will retry them`, error)
    }
  }
}

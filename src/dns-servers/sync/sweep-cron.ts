import { and, lt, ne } from 'drizzle-orm'
import type { CronTask } from '../../cron/task'
import { db } from '../../db/client'
import { zoneBoxSync } from '../../db/schema/dns-servers'
import { enqueueZoneSync, syncNow } from './queue'

// A live job chain touches its row at least every 12 h (the longest backoff), so a row untouched for longer
// has no job left: its retries were dead-lettered, its enqueue failed, or the commit after a write failed
// (marking a box behind before a write leaves `updatedAt` alone, so such a row is found here).
export const ORPHAN_AFTER_MS = 13 * 60 * 60 * 1000

/** Queues a fresh zone-sync for every unsynced box whose job chain has ended, so no box stays behind silently. */
export const syncSweepTask: CronTask = {
  name: 'dns zone-sync sweep',
  schedule: '*/10 * * * *',
  async run(env, scheduledTime) {
    const orphans = await db(env.DB)
      .select({ zoneId: zoneBoxSync.zoneId, nodeId: zoneBoxSync.nodeId })
      .from(zoneBoxSync)
      .where(
        and(
          ne(zoneBoxSync.state, 'synced'),
          lt(zoneBoxSync.updatedAt, new Date(scheduledTime - ORPHAN_AFTER_MS)),
        ),
      )
    await enqueueZoneSync(
      env,
      orphans.map((row) => syncNow(row.zoneId, row.nodeId)),
    )
  },
}

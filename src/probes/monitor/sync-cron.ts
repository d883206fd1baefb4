import { asc, sql } from 'drizzle-orm'
import type { CronTask } from '../../cron/task'
import { db } from '../../db/client'
import { probes } from '../../db/schema/probes'
import type { Env } from '../../env'
import { configureMonitor } from './configure'

/** Monitors one sweep configures at most; the rest are the next minute's (oldest change first). */
export const MONITOR_SYNC_LIMIT = 100

/**
 * Configures again every probe whose monitor did not confirm the row's current version (the call after the
 * commit failed), through the partial index `probes_monitor_behind_idx`. Answers how many caught up.
 */
export async function syncBehindMonitors(env: Env): Promise<number> {
  const rows = await db(env.DB)
    .select()
    .from(probes)
    .where(sql`${probes.monitorVersion} is not ${probes.updatedAt}`)
    .orderBy(asc(probes.updatedAt))
    .limit(MONITOR_SYNC_LIMIT)
  const outcomes = await Promise.allSettled(rows.map((row) => configureMonitor(env, row)))
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'rejected')
      console.error(`probe ${rows[i]?.id}: configuring its monitor failed again`, outcome.reason)
  })
  return outcomes.filter((outcome) => outcome.status === 'fulfilled').length
}

/** Each minute: monitors left behind by a failed configure catch up with D1. */
export const monitorSyncTask: CronTask = {
  name: 'probe monitor sync',
  schedule: '* * * * *',
  async run(env) {
    const synced = await syncBehindMonitors(env)
    if (synced > 0) console.log(`probe monitor sync: ${synced} monitors caught up with D1`)
  },
}

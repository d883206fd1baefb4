import { and, inArray, lt } from 'drizzle-orm'
import type { CronTask } from '../cron/task'
import { type Db, db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { enqueueCustomHostnameJob } from './jobs'

// A live job chain touches its row at least every 32 minutes (the backoff before the last DNS attempt), so a row
// pending or removing without a change for two hours has no job left: a lost enqueue or a dead-lettered message.
export const LOST_CHAIN_AFTER_MS = 2 * 60 * 60 * 1000

/**
 * The rows pending or removing unchanged since `before`, read through the (state, updated_at) index: the sweep
 * reads what is in flight, not every hostname of the installation.
 */
export function selectLostChains(database: Db, before: Date) {
  return database
    .select({
      id: customHostnames.id,
      state: customHostnames.state,
      generation: customHostnames.generation,
    })
    .from(customHostnames)
    .where(
      and(inArray(customHostnames.state, ['pending', 'removing']), lt(customHostnames.updatedAt, before)),
    )
}

/** Queues the job again for every pending or removing row whose chain ended, so none stays silently stuck. */
export const customHostnameSweepTask: CronTask = {
  name: 'custom-hostname sweep',
  schedule: '*/10 * * * *',
  async run(env, scheduledTime) {
    const lost = await selectLostChains(db(env.DB), new Date(scheduledTime - LOST_CHAIN_AFTER_MS))
    for (const row of lost) {
      await enqueueCustomHostnameJob(env, {
        type: row.state === 'pending' ? 'custom-hostname.write' : 'custom-hostname.remove',
        id: row.id,
        generation: row.generation,
      })
    }
  },
}

import { and, eq, lt, notInArray } from 'drizzle-orm'
import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { domains } from '../db/schema/domains'
import { enqueueDomainStep } from './chain'

// A live chain touches its row at least every 16 minutes (the longest wait between two looks), so a row in a
// step without a change for an hour has no job left: a lost enqueue or a dead-lettered message.
export const LOST_DOMAIN_CHAIN_AFTER_MS = 60 * 60 * 1000

/** Queues the current step again for every domain whose job chain ended before the flow came to rest. */
export const domainSweepTask: CronTask = {
  name: 'domain sweep',
  schedule: '*/10 * * * *',
  async run(env, scheduledTime) {
    const database = db(env.DB)
    const lost = await database
      .select({ id: domains.id, generation: domains.generation })
      .from(domains)
      .where(
        and(
          notInArray(domains.step, ['green', 'failed']),
          lt(domains.updatedAt, new Date(scheduledTime - LOST_DOMAIN_CHAIN_AFTER_MS)),
        ),
      )
    for (const row of lost) {
      // Touched so the next sweep waits for this chain instead of starting another beside it.
      await database
        .update(domains)
        .set({ updatedAt: new Date(scheduledTime) })
        .where(and(eq(domains.id, row.id), eq(domains.generation, row.generation)))
      await enqueueDomainStep(env, row)
    }
  },
}

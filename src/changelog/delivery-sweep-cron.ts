import { and, gte, inArray, lt, sql } from 'drizzle-orm'
import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { changelogWebhookDeliveries as deliveries } from '../db/schema/changelog'
import { recordDeadJob, runKey } from '../jobs/failed-jobs'
import { DELIVERY_ATTEMPTS, MAX_DELAY_SECONDS } from './jobs'
import { enqueueDeliveries, PENDING_DELIVERY } from './webhook-deliveries'

// A live job chain touches its delivery at every attempt, and attempts are at most MAX_DELAY_SECONDS apart, so a
// pending delivery untouched for an hour longer has no chain left: its enqueue failed or its message was
// dead-lettered by an attempt that died before recording its result.
export const STALLED_AFTER_MS = (MAX_DELAY_SECONDS + 60 * 60) * 1000
// Any more wait for the next run, so one run stays well inside its subrequest budget (50 deliveries per send).
const REVIVED_PER_RUN = 500

/** Ends stalled deliveries whose attempts are spent (dead jobs) and queues a fresh job chain for the others. */
export const deliverySweepTask: CronTask = {
  name: 'changelog webhook delivery sweep',
  schedule: '*/10 * * * *',
  async run(env, scheduledTime) {
    const database = db(env.DB)
    const now = new Date(scheduledTime)
    const stalled = and(
      inArray(deliveries.status, [...PENDING_DELIVERY]),
      lt(deliveries.updatedAt, new Date(scheduledTime - STALLED_AFTER_MS)),
    )
    const toRevive = database
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(and(stalled, lt(deliveries.attempts, DELIVERY_ATTEMPTS)))
      .limit(REVIVED_PER_RUN)
    const [ended, revived] = await database.batch([
      database
        .update(deliveries)
        .set({
          status: 'failed',
          nextAttemptAt: null,
          lastError: sql`coalesce(${deliveries.lastError} || '; ', '') || 'gave up after ' || ${deliveries.attempts} || ' attempts (the last one ended without a result)'`,
          updatedAt: now,
        })
        .where(and(stalled, gte(deliveries.attempts, DELIVERY_ATTEMPTS)))
        .returning({ id: deliveries.id, attempts: deliveries.attempts, lastError: deliveries.lastError }),
      // Touched, so the next run does not queue them again while their new chain starts.
      database
        .update(deliveries)
        .set({ nextAttemptAt: now, updatedAt: now })
        .where(inArray(deliveries.id, toRevive))
        .returning({ id: deliveries.id }),
    ])
    await enqueueDeliveries(
      env,
      database,
      revived.map((row) => row.id),
    )
    // The deliveries it ended are dead jobs, retriable from the jobs list like those whose last attempt gave up.
    for (const delivery of ended) {
      const message = { type: 'changelog.webhook-delivery' as const, deliveryId: delivery.id }
      await recordDeadJob(env, {
        key: runKey(message, ''),
        message,
        attempts: delivery.attempts,
        error: delivery.lastError ?? 'gave up',
        at: now,
        deadLettered: false,
      })
    }
  },
}

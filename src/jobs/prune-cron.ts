import type { CronTask } from '../cron/task'
import type { Env } from '../env'

/** A succeeded job's row is kept this long after its last attempt, then deleted; dead rows wait for an operator. */
export const SUCCEEDED_RETENTION_MS = 30 * 86_400_000
/** Rows one run deletes at most (walking the state index); the rest go in the next hour. */
const LIMIT = 5000

/** Deletes the `succeeded` rows of `failed_jobs` whose last attempt is older than the retention. */
export async function pruneSucceededJobs(env: Env, now: number): Promise<void> {
  await env.DB.prepare(
    `delete from failed_jobs where id in (select id from failed_jobs
       where state = 'succeeded' and last_attempt_at < ?1 order by last_attempt_at limit ?2)`,
  )
    .bind(now - SUCCEEDED_RETENTION_MS, LIMIT)
    .run()
}

/** Each hour: forget failed jobs that succeeded more than 30 days ago. */
export const succeededJobsPruneTask: CronTask = {
  name: 'succeeded jobs prune',
  schedule: '0 * * * *',
  async run(env, scheduledTime) {
    await pruneSucceededJobs(env, scheduledTime)
  },
}

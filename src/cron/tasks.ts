import { deliverySweepTask } from '../changelog/delivery-sweep-cron'
import { mirrorPullTask } from '../changelog/mirror-cron'
import { refreshZonesTask } from '../dns-accounts/refresh-zones-cron'
import { syncSweepTask } from '../dns-servers/sync-sweep-cron'
import type { Env } from '../env'

export interface CronTask {
  name: string
  /** The cron expression, exactly as listed under [triggers] in wrangler.toml. */
  schedule: string
  run(env: Env, scheduledTime: number): Promise<void>
}

/** Every periodic task; scheduled() runs those whose schedule fired. */
export const cronTasks: CronTask[] = [refreshZonesTask, mirrorPullTask, deliverySweepTask, syncSweepTask]

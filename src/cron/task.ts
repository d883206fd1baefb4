import type { Env } from '../env'

/** One periodic task of an area; `cron/tasks.ts` lists them all. */
export interface CronTask {
  name: string
  /** The cron expression, exactly as listed under [triggers] in wrangler.toml. */
  schedule: string
  run(env: Env, scheduledTime: number): Promise<void>
}

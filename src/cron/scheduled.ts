import { forgetReplicaCopies } from '../db/replica-copy'
import type { Env } from '../env'
import { cronTasks } from './tasks'

/** Runs every task registered for the schedule that fired; one failing task does not stop the others. */
export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const due = cronTasks.filter((task) => task.schedule === controller.cron)
  const results = await Promise.allSettled(due.map((task) => task.run(env, controller.scheduledTime)))
  // The tasks wrote outside any procedure commit: this isolate's copies of hot reads must not outlive them.
  forgetReplicaCopies()
  results.forEach((result, i) => {
    if (result.status === 'rejected') console.error(`cron task ${due[i]?.name} failed`, result.reason)
  })
}

import type { CronTask } from '../cron/task'
import { announceHeld } from './operational'

/** Each minute: announces the open operational events the cooldown, the cap or missing recipients held back. */
export const heldNotificationsTask: CronTask = {
  name: 'held operational notifications',
  schedule: '* * * * *',
  async run(env, scheduledTime) {
    await announceHeld(env, new Date(scheduledTime))
  },
}

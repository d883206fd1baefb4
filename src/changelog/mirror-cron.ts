import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { invalidateFeed } from './feed-cache'
import { pullMirror, storePull } from './mirror'

/** Pulls the upstream changelog feed on a schedule; with no upstream set it reads one row and fetches nothing. */
export const mirrorPullTask: CronTask = {
  name: 'changelog mirror pull',
  schedule: '*/10 * * * *',
  async run(env) {
    const database = db(env.DB)
    const outcome = await pullMirror(database)
    if (!outcome) return
    const { state, record } = await storePull(database, outcome)
    await database.batch([record])
    invalidateFeed()
    if (state.lastStatus === 'failed') console.error(`changelog mirror pull failed: ${state.lastError}`)
  },
}

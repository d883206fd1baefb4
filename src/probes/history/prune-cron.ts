import type { CronTask } from '../../cron/task'
import type { Env } from '../../env'

const HOUR_MS = 3_600_000
/** Raw check results are kept this long (events and daily rollups are kept for good). */
export const RAW_RETENTION_MS = 7 * 24 * HOUR_MS
/** Hourly rollups are kept this long: the longest history window, 2,160 hours. */
export const HOURLY_RETENTION_MS = 2160 * HOUR_MS
/** Probes whose old rows one batch deletes. */
const CHUNK = 200
/** No chunk is started once this much time has gone since the run began; the rest waits for the next hour. */
const BUDGET_MS = 25_000

// Both deletes walk the (probe, kind, at) and (probe, granularity, bucket) indexes probe by probe, so a run
// reads the rows it deletes and the probes' ids, never the whole results table. Each hourly run has about an
// hour of rows per probe to delete, so a chunk stays small.
const DELETE_RAW = `delete from probe_results where probe_id in (select value from json_each(?1))
  and kind = 'raw' and at < ?2`
const DELETE_HOURLY = `delete from probe_rollups where probe_id in (select value from json_each(?1))
  and granularity = 'hourly' and bucket_start < ?2`

/** Deletes raw results and hourly rollups past their retention, a chunk of probes per batch. */
export async function pruneProbeHistory(env: Env, now: number, clock = Date.now): Promise<void> {
  const started = clock()
  let after = ''
  while (clock() - started < BUDGET_MS) {
    const { results } = await env.DB.prepare('select id from probes where id > ?1 order by id limit ?2')
      .bind(after, CHUNK)
      .all<{ id: string }>()
    const last = results.at(-1)
    if (!last) return
    const ids = JSON.stringify(results.map((row) => row.id))
    await env.DB.batch([
      env.DB.prepare(DELETE_RAW).bind(ids, now - RAW_RETENTION_MS),
      env.DB.prepare(DELETE_HOURLY).bind(ids, now - HOURLY_RETENTION_MS),
    ])
    if (results.length < CHUNK) return
    after = last.id
  }
  console.warn(`probe history prune used its ${BUDGET_MS / 1000} s budget; the rest waits for the next hour`)
}

/** Each hour: prune raw results and hourly rollups past their retention. */
export const probePruneTask: CronTask = {
  name: 'probe history prune',
  schedule: '0 * * * *',
  async run(env, scheduledTime) {
    await pruneProbeHistory(env, scheduledTime)
  },
}

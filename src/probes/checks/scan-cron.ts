import type { CronTask } from '../../cron/task'
import type { Env } from '../../env'
import { isCheckedConfig, type ProbeConfig, type ProbeType } from '../config'

/** The shortest interval the minute scan runs; shorter ones run on the probe's own Durable Object alarm. */
export const SCAN_MIN_INTERVAL_SECONDS = 60
/** Due probes one scan moves on and enqueues at most; the rest are the next minute's (oldest first). */
export const SCAN_LIMIT = 5000
/** Probes moved on per statement. */
const CHUNK = 500
/** The most messages one `sendBatch` takes. */
const SEND_BATCH = 100

/** A `probe.check` message: run the probe's check scheduled for `scheduledAt` (ms). */
export interface ProbeCheckMessage {
  type: 'probe.check'
  probeId: string
  scheduledAt: number
}

/** Whether the minute scan runs this probe's checks (then its nextCheckAt is set); otherwise it has none. */
export function isScanned(probe: {
  type: ProbeType
  config: ProbeConfig
  enabled: boolean
  archived: boolean
}): boolean {
  return (
    probe.enabled &&
    !probe.archived &&
    probe.type !== 'heartbeat' &&
    isCheckedConfig(probe.config) &&
    probe.config.intervalSeconds >= SCAN_MIN_INTERVAL_SECONDS
  )
}

// One statement is both the check and the write: it takes the oldest due probes through the partial index
// `probes_due_idx` and moves each to its due time + interval (now + interval when that is not in the future), so
// an overlapping scan finds them no longer due. The slot a check fills (`new - interval`) is its scheduled time:
// the due time, or now for a probe far behind; both scans of a race would name the same check.
const MOVE_DUE = `
update probes
set next_check_at = case
  when next_check_at + json_extract(config, '$.intervalSeconds') * 1000 > ?1
  then next_check_at + json_extract(config, '$.intervalSeconds') * 1000
  else ?1 + json_extract(config, '$.intervalSeconds') * 1000 end
where id in (select id from probes where next_check_at <= ?1 order by next_check_at limit ?2)
returning id, next_check_at - json_extract(config, '$.intervalSeconds') * 1000 as scheduled_at`

/**
 * Moves every due probe's next check on and queues a `probe.check` for it, in chunks. Reports how many it queued
 * and the D1 rows its statements read (which grows with the due probes, not with all probes).
 */
export async function scanDueProbes(env: Env, now: number): Promise<{ queued: number; rowsRead: number }> {
  let queued = 0
  let rowsRead = 0
  while (queued < SCAN_LIMIT) {
    const { results, meta } = await env.DB.prepare(MOVE_DUE)
      .bind(now, Math.min(CHUNK, SCAN_LIMIT - queued))
      .all<{ id: string; scheduled_at: number }>()
    rowsRead += meta.rows_read
    const messages = results.map((row) => {
      const body: ProbeCheckMessage = { type: 'probe.check', probeId: row.id, scheduledAt: row.scheduled_at }
      return { body }
    })
    for (let i = 0; i < messages.length; i += SEND_BATCH) {
      await env.JOBS.sendBatch(messages.slice(i, i + SEND_BATCH))
    }
    queued += results.length
    if (results.length < CHUNK) break
  }
  return { queued, rowsRead }
}

/** Each minute: queue a check for every probe whose next check is due. */
export const probeScanTask: CronTask = {
  name: 'probe scan',
  schedule: '* * * * *',
  async run(env, scheduledTime) {
    const { queued, rowsRead } = await scanDueProbes(env, scheduledTime)
    if (queued > 0) console.log(`probe scan: ${queued} checks queued, ${rowsRead} D1 rows read`)
  },
}

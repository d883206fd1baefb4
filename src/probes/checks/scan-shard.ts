import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { CHECKS_PER_MESSAGE, type ProbeChecksMessage } from './pack-job'

/**
 * Due probes one `probe.scan` shard claims: one D1 statement (of D1's 1,000 per invocation) and
 * SHARD_SIZE / CHECKS_PER_MESSAGE = 40 `probe.checks` packs of about 1.5 KB, sent in one sendBatch call.
 */
export const SHARD_SIZE = 1000
/** The most messages one `sendBatch` takes (and at most 256 KB). */
export const SEND_BATCH = 100

/** A shard of the minute scan at `scanAt` (ms): claim up to SHARD_SIZE of the probes due then and queue their checks. */
export interface ProbeScanMessage {
  type: 'probe.scan'
  scanAt: number
}

// One statement is both the check and the write: it takes the oldest due probes through the partial index
// `probes_due_idx` and moves each to its due time + interval (now + interval when that is not in the future), so
// a concurrent shard, an overlapping scan or a redelivered shard finds them no longer due. The slot a check fills
// (`new - interval`) is its scheduled time: the due time, or the scan time for a probe far behind; two shards of a
// race would name the same check.
const MOVE_DUE = `
update probes
set next_check_at = case
  when next_check_at + json_extract(config, '$.intervalSeconds') * 1000 > ?1
  then next_check_at + json_extract(config, '$.intervalSeconds') * 1000
  else ?1 + json_extract(config, '$.intervalSeconds') * 1000 end
where id in (select id from probes where next_check_at <= ?1 order by next_check_at limit ?2)
returning id, next_check_at - json_extract(config, '$.intervalSeconds') * 1000 as scheduled_at`

/**
 * Claims the oldest SHARD_SIZE probes due at `scanAt` and queues their checks in `probe.checks` packs, oldest
 * first. Reports how many checks it queued and the D1 rows its statement read (about six per claimed probe, none
 * for the probes not due).
 */
export async function scanShard(env: Env, scanAt: number): Promise<{ queued: number; rowsRead: number }> {
  const { results, meta } = await env.DB.prepare(MOVE_DUE)
    .bind(scanAt, SHARD_SIZE)
    .all<{ id: string; scheduled_at: number }>()
  // RETURNING gives no order: the packs go oldest slot first.
  const checks = results
    .map((row) => ({ probeId: row.id, scheduledAt: row.scheduled_at }))
    .sort((a, b) => a.scheduledAt - b.scheduledAt)
  const messages: { body: ProbeChecksMessage }[] = []
  for (let i = 0; i < checks.length; i += CHECKS_PER_MESSAGE)
    messages.push({ body: { type: 'probe.checks', scanAt, checks: checks.slice(i, i + CHECKS_PER_MESSAGE) } })
  for (let i = 0; i < messages.length; i += SEND_BATCH) {
    await env.JOBS.sendBatch(messages.slice(i, i + SEND_BATCH))
  }
  return { queued: results.length, rowsRead: meta.rows_read }
}

/**
 * The `probe.scan` job. A retry or a redelivery claims whatever is still due (never a slot already claimed); the
 * checks of a shard whose sends failed after its claim are lost for that slot, and their probes are checked at
 * the next one.
 */
export async function probeScanJob(message: ProbeScanMessage, env: Env): Promise<JobOutcome> {
  const { queued, rowsRead } = await scanShard(env, message.scanAt)
  if (queued > 0)
    console.log(`probe scan shard of ${message.scanAt}: ${queued} checks queued, ${rowsRead} D1 rows read`)
  return { kind: 'done' }
}

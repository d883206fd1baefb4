import type { CronTask } from '../../cron/task'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { isCheckedConfig, type ProbeConfig, type ProbeType } from '../config'
import { type ProbeScanMessage, SEND_BATCH, SHARD_SIZE } from './scan-shard'

/** The shortest interval the minute scan runs; shorter ones run on the probe's own Durable Object alarm. */
export const SCAN_MIN_INTERVAL_SECONDS = 60
/**
 * Shards started per second: 2 × SHARD_SIZE = 2,000 claimed probes (one D1 update each) and 80 `probe.checks`
 * packs a second, so the claims leave D1 time for everything else, oldest first.
 */
export const SHARDS_PER_SECOND = 2
/**
 * The scan runs again every TICK_SECONDS within the minute (the cron queues the ticks, each delayed until its
 * time), so a due probe waits at most that long to be claimed, not up to a minute: at 100,000 probes a tick's
 * ~16,700 claims start within 8.5 s, before the next tick.
 */
export const TICK_SECONDS = 10

/** A tick of the minute scan at `scanAt` (ms): counts and fans out the probes due then, as the cron does. */
export interface ProbeScanTickMessage {
  type: 'probe.scan.tick'
  scanAt: number
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

// Counted on the partial index `probes_due_idx` alone: the rows it reads are the due probes' index entries.
const COUNT_DUE = 'select count(*) as due from probes where next_check_at <= ?1'

/**
 * The minute scan's first step: counts the probes due at `now` and queues one `probe.scan` shard per SHARD_SIZE of
 * them, which the queue consumers claim and enqueue (scan-shard.ts), so no one invocation moves them all. The
 * shards start SHARDS_PER_SECOND a second (a queue delay) to keep the sends under the queue's rate; each claims
 * the oldest due probes when it runs, so the probes furthest behind go first. Probes falling due after the count
 * are the next tick's, as are any a failed shard left due. Reports what it read and queued.
 */
export async function fanOutScan(
  env: Env,
  now: number,
): Promise<{ due: number; shards: number; rowsRead: number }> {
  const { results, meta } = await env.DB.prepare(COUNT_DUE).bind(now).all<{ due: number }>()
  const due = results[0]?.due ?? 0
  const shards = Math.ceil(due / SHARD_SIZE)
  const messages = Array.from({ length: shards }, (_, i) => {
    const body: ProbeScanMessage = { type: 'probe.scan', scanAt: now }
    return { body, delaySeconds: Math.floor(i / SHARDS_PER_SECOND) }
  })
  for (let i = 0; i < messages.length; i += SEND_BATCH) {
    await env.JOBS.sendBatch(messages.slice(i, i + SEND_BATCH))
  }
  return { due, shards, rowsRead: meta.rows_read }
}

async function scanAndReport(env: Env, scanAt: number): Promise<void> {
  const { due, shards, rowsRead } = await fanOutScan(env, scanAt)
  if (due > 0)
    console.log(`probe scan of ${scanAt}: ${due} due, ${shards} shards queued, ${rowsRead} D1 rows read`)
}

/** Each minute: fan the probes whose next check is due out into `probe.scan` shards, and queue the minute's ticks. */
export const probeScanTask: CronTask = {
  name: 'probe scan',
  schedule: '* * * * *',
  async run(env, scheduledTime) {
    await scanAndReport(env, scheduledTime)
    const ticks = Array.from({ length: 60 / TICK_SECONDS - 1 }, (_, i) => {
      const after = (i + 1) * TICK_SECONDS
      const body: ProbeScanTickMessage = { type: 'probe.scan.tick', scanAt: scheduledTime + after * 1000 }
      return { body, delaySeconds: after }
    })
    await env.JOBS.sendBatch(ticks)
  },
}

/**
 * The `probe.scan.tick` job. A tick delivered late scans at its own time all the same (what fell due since waits
 * for the next); one delivered again fans out again, and its shards find the claimed probes no longer due.
 */
export async function probeScanTickJob(message: ProbeScanTickMessage, env: Env): Promise<JobOutcome> {
  await scanAndReport(env, message.scanAt)
  return { kind: 'done' }
}

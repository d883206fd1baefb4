import { db } from '../../db/client'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { windowsByProbe, windowsCoveringProbesQuery } from '../../maintenance/windows-read'
import { WINDOWS_LOOKBACK_MS } from '../monitor/store'
import { probeRecordsQuery } from '../rows'
import type { ProbeCheckMessage } from './job'
import { benchMode, checkProbe, isStillDue, type ScheduledCheck } from './job'

/**
 * Checks one `probe.checks` message carries. A pack, not a message per check: at 100,000 probes a minute that is
 * 4,000 queue messages a minute instead of 100,000 (each message is three billed queue operations), and two D1
 * reads (its probes' rows, their maintenance windows) instead of two per check. Small enough that a pack of checks all waiting out the
 * default 10 s timeout, CONCURRENT_CHECKS at a time, ends within a minute.
 */
export const CHECKS_PER_MESSAGE = 25
/**
 * Checks of a pack run at once: a Worker invocation keeps 6 outgoing connections open at a time and queues the
 * rest, and a check waiting for a connection would count the wait in its latency and its timeout.
 */
export const CONCURRENT_CHECKS = 6

/** A pack of the minute scan at `scanAt` (ms): the checks of distinct probes, each for its own slot. */
export interface ProbeChecksMessage {
  type: 'probe.checks'
  scanAt: number
  checks: ScheduledCheck[]
}

/**
 * Runs a pack's checks: one read of its probes' rows and one of the maintenance windows covering them, then each
 * slot still due, CONCURRENT_CHECKS at a time. A
 * check whose run or monitor call failed is sent on as its own `probe.check` (retried with backoff and shown on
 * the jobs list like any job), so the others are not run again; only when that send fails does the whole pack
 * retry, and its monitors then count each slot once (by check id).
 */
export async function probeChecksJob(message: ProbeChecksMessage, env: Env): Promise<JobOutcome> {
  const ids = message.checks.map((check) => check.probeId)
  // Both at once; the windows are read here for the whole pack, where each monitor would otherwise read its own
  // before judging (a D1 query a check).
  const database = db(env.DB)
  const readAt = Date.now()
  const [records, windowRows] = await Promise.all([
    probeRecordsQuery(database, ids),
    windowsCoveringProbesQuery(database, ids, readAt - WINDOWS_LOOKBACK_MS),
  ])
  const rows = new Map(records.map((row) => [row.id, row]))
  const windows = windowsByProbe(windowRows)
  const due = message.checks.flatMap((check) => {
    const row = rows.get(check.probeId)
    return row && isStillDue(row, check.scheduledAt) ? [{ row, check }] : []
  })
  const bench = benchMode(env)
  if (bench === 'log') {
    logBench(due.map(({ check }) => check))
    return { kind: 'done' }
  }
  const failed: ProbeCheckMessage[] = []
  const done: ScheduledCheck[] = []
  let next = 0
  const worker = async () => {
    for (let item = due[next++]; item; item = due[next++]) {
      try {
        const known = { readAt, windows: windows.get(item.row.id) ?? [] }
        await checkProbe(env, item.row, item.check.scheduledAt, known)
        done.push(item.check)
      } catch (error) {
        console.error(`probe ${item.check.probeId}: the check of ${item.check.scheduledAt} failed`, error)
        failed.push({ type: 'probe.check', ...item.check })
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CHECKS, due.length) }, worker))
  if (bench === 'monitor') logBench(done)
  if (failed.length > 0) await env.JOBS.sendBatch(failed.map((body) => ({ body })))
  return { kind: 'done' }
}

/** The bench's line (test/bench/scale-probes.mjs): when these slots were done. */
function logBench(checks: ScheduledCheck[]): void {
  const slots = checks.map((check) => `${check.probeId}@${check.scheduledAt}`)
  if (slots.length > 0) console.log(`bench probe.checks ${Date.now()} ${slots.join(' ')}`)
}

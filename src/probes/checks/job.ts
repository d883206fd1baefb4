import { db } from '../../db/client'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { isCheckedConfig } from '../config'
import { dispatchRound } from '../locations/dispatch'
import { isEdgeOnly } from '../locations/schema'
import type { CheckResult } from '../monitor/api'
import type { KnownWindows } from '../monitor/store'
import { findProbeRecord, type ProbeRecord, toSnapshot } from '../rows'
import { runCheck } from './run-check'

/** A `probe.check` message: run the probe's check scheduled for `scheduledAt` (ms); the scan sends them in packs (pack-job.ts). */
export interface ProbeCheckMessage {
  type: 'probe.check'
  probeId: string
  scheduledAt: number
}

/** One scheduled check: the probe's slot at `scheduledAt` (ms). */
export type ScheduledCheck = Pick<ProbeCheckMessage, 'probeId' | 'scheduledAt'>

/**
 * Runs one scheduled check (a `probe.check`: a check sent on its own, or one a `probe.checks` pack could not
 * finish) and hands the result to the probe's monitor. A failure retries the message.
 */
export async function probeCheckJob(message: ProbeCheckMessage, env: Env): Promise<JobOutcome> {
  const row = await findProbeRecord(db(env.DB), message.probeId)
  if (!row || !isStillDue(row, message.scheduledAt)) return { kind: 'done' }
  if (benchMode(env) === 'log') {
    console.log(`bench probe.check ${Date.now()} ${message.probeId}@${message.scheduledAt}`)
    return { kind: 'done' }
  }
  await checkProbe(env, row, message.scheduledAt)
  return { kind: 'done' }
}

/**
 * Whether the slot still runs: a probe archived, paused, deleted or turned heartbeat since the scan is skipped; so
 * is a slot a later scan superseded (a late retry).
 */
export function isStillDue(row: ProbeRecord, scheduledAt: number): boolean {
  if (row.archivedAt || !row.enabled || !isCheckedConfig(row.config)) return false
  return !isSuperseded(row.nextCheckAt, scheduledAt, row.config.intervalSeconds)
}

/** `npm run bench:scale`, in development only: `log` stubs everything from the monitor on, `monitor` the check. */
export function benchMode(env: Env): 'log' | 'monitor' | null {
  if (env.ENVIRONMENT !== 'development') return null
  return env.PROBE_CHECK_BENCH === 'log' || env.PROBE_CHECK_BENCH === 'monitor' ? env.PROBE_CHECK_BENCH : null
}

/** The made-up result of the `monitor` bench mode: what an instant check that found the target up hands on. */
function benchResult(checkId: string): CheckResult {
  return { checkId, at: Date.now(), outcome: 'up', latencyMs: 1, detail: 'bench' }
}

/**
 * Runs the probe's check for the slot at `scheduledAt` and hands the result to its monitor, with the maintenance
 * windows covering the probe when the caller read them (else the monitor reads them itself). The check id names
 * the slot, so a slot checked twice changes the state once. A probe with node locations runs as a round
 * (locations/dispatch.ts): the monitor judges it once its nodes answered.
 */
export async function checkProbe(
  env: Env,
  row: ProbeRecord,
  scheduledAt: number,
  windows?: KnownWindows,
): Promise<void> {
  const snapshot = toSnapshot(row)
  const monitor = env.PROBE_MONITOR.getByName(row.id)
  if (isEdgeOnly(snapshot.locations)) {
    const checkId = `${row.id}:${scheduledAt}`
    const result =
      benchMode(env) === 'monitor' ? benchResult(checkId) : await runCheck(env, snapshot, checkId)
    await monitor.applyResult(snapshot, result, windows)
    return
  }
  await dispatchRound(env, snapshot, scheduledAt, {
    open: (opening) => monitor.openRound(snapshot, opening, windows),
    report: (checkId, location, verdict) => monitor.reportLocation(checkId, location, verdict),
  })
}

/**
 * Whether a later scan already queued the slot after this check's (the probe's next check moved past it), or the
 * probe left the minute scan. Not a clock comparison: a check reaches its job after the scan tick that claimed it
 * and the queue's delay, and a busy queue's delay on top must not drop every one of a probe's checks.
 */
function isSuperseded(nextCheckAt: Date | null, scheduledAt: number, intervalSeconds: number): boolean {
  return nextCheckAt === null || nextCheckAt.getTime() > scheduledAt + intervalSeconds * 1000
}

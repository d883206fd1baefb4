import { db } from '../../db/client'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { isCheckedConfig } from '../config'
import { dispatchRound } from '../locations/dispatch'
import { isEdgeOnly } from '../locations/schema'
import { findProbeRecord, toSnapshot } from '../rows'
import { runCheck } from './run-check'
import type { ProbeCheckMessage } from './scan-cron'

/**
 * Runs one scheduled check and hands the result to the probe's monitor. The check id names the scheduled slot,
 * so a message delivered twice changes the state once. A probe archived, paused, deleted or turned heartbeat
 * since the scan is skipped; so is a check a later scan superseded (a late retry). A probe
 * with node locations runs as a round (locations/dispatch.ts): the monitor judges it once its nodes answered.
 */
export async function probeCheckJob(message: ProbeCheckMessage, env: Env): Promise<JobOutcome> {
  const row = await findProbeRecord(db(env.DB), message.probeId)
  if (!row || row.archivedAt || !row.enabled || !isCheckedConfig(row.config)) return { kind: 'done' }
  if (isSuperseded(row.nextCheckAt, message.scheduledAt, row.config.intervalSeconds)) return { kind: 'done' }
  if (env.PROBE_CHECK_BENCH === 'log' && env.ENVIRONMENT === 'development') {
    console.log(`bench probe.check ${message.probeId} ${message.scheduledAt} ${Date.now()}`)
    return { kind: 'done' }
  }
  const snapshot = toSnapshot(row)
  const monitor = env.PROBE_MONITOR.getByName(message.probeId)
  if (isEdgeOnly(snapshot.locations)) {
    const result = await runCheck(env, snapshot, `${message.probeId}:${message.scheduledAt}`)
    await monitor.applyResult(snapshot, result)
    return { kind: 'done' }
  }
  await dispatchRound(env, snapshot, message.scheduledAt, {
    open: (opening) => monitor.openRound(snapshot, opening),
    report: (checkId, location, verdict) => monitor.reportLocation(checkId, location, verdict),
  })
  return { kind: 'done' }
}

/**
 * Whether a later scan already queued the slot after this check's (the probe's next check moved past it), or the
 * probe left the minute scan. Not a clock comparison: the scan runs at minute boundaries, so a probe due just after
 * one is queued almost an interval late, and any queue delay on top would then drop every one of its checks.
 */
function isSuperseded(nextCheckAt: Date | null, scheduledAt: number, intervalSeconds: number): boolean {
  return nextCheckAt === null || nextCheckAt.getTime() > scheduledAt + intervalSeconds * 1000
}

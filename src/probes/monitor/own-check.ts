import { runCheck } from '../checks/run-check'
import { isCheckedConfig } from '../config'
import { dispatchRound } from '../locations/dispatch'
import { EDGE, isEdgeOnly } from '../locations/schema'
import { runsOwnChecks } from './accept-snapshot'
import { isActive, type MonitorSnapshot } from './api'
import { applyCheck } from './apply-check'
import type { MonitorContext } from './context'
import { fillRoundIn, judgeRounds, openRoundIn } from './rounds'

/**
 * Runs the check due by the monitor's own alarm (intervals under a minute): at the edge here, or as a round
 * dispatched to the probe's nodes. True when the displayed state changed.
 */
export async function runOwnCheck(
  monitor: MonitorContext,
  snapshot: MonitorSnapshot,
  now: number,
): Promise<boolean> {
  const { store, env } = monitor
  const due = store.nextCheckAt()
  const config = snapshot.config
  if (
    due === null ||
    due > now ||
    !isActive(snapshot) ||
    !runsOwnChecks(snapshot) ||
    !isCheckedConfig(config)
  )
    return false
  const intervalMs = config.intervalSeconds * 1000
  // Moved on before the check runs, so an alarm that dies mid-check does not run the same slot forever.
  store.setNextCheckAt(Math.max(due + intervalMs, now))
  if (isEdgeOnly(snapshot.locations)) {
    const result = await runCheck(env, snapshot, `${snapshot.id}:${due}`)
    return applyCheck(monitor, result, EDGE)
  }
  await dispatchRound(env, snapshot, due, {
    open: async (opening) => openRoundIn(store, opening, Date.now()),
    report: async (checkId, location, verdict) => fillRoundIn(store, checkId, location, verdict),
  })
  // By the real clock: the alarm's own moment may lie past the deadline of the round it just opened.
  return judgeRounds(monitor, Date.now())
}

import { type CheckResult, isActive } from './api'
import type { MonitorContext } from './context'
import { record } from './record'
import type { StoredResult } from './results-store'
import { rememberCheck } from './state-machine'

/**
 * Applies a check result once per check id, measured at `location` (null for a round over several, whose
 * locations' own verdicts come as `shares`: kept for their location's history, counted once as the result).
 */
export function applyCheck(
  monitor: MonitorContext,
  result: CheckResult,
  location: string | null,
  shares: StoredResult[] = [],
): boolean {
  const { store, results } = monitor
  const snapshot = store.snapshot()
  if (!snapshot || !isActive(snapshot)) return false
  const ids = rememberCheck(store.appliedChecks(), result.checkId)
  if (!ids) return false
  store.setAppliedChecks(ids)
  for (const share of shares) results.add(share, false)
  const { at, outcome, latencyMs, detail } = result
  return record(monitor, { kind: 'result', at, outcome, latencyMs, detail }, location)
}

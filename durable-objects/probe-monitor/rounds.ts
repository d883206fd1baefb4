import type { Verdict } from '../../src/probes/checks/verdict'
import { fillPlace, MAX_OPEN_ROUNDS, type Round, waitingKeys } from '../../src/probes/locations/round'
import type { RoundOpening } from '../../src/probes/monitor/api'
import type { MonitorStore } from '../../src/probes/monitor/store'
import { isActive } from './heartbeat'

/**
 * Opens a round unless its check was judged already (a retried job) or the probe does not run; answers the
 * locations still to run. Past the cap, the oldest rounds are judged at once (their empty places failed).
 */
export function openRoundIn(store: MonitorStore, opening: RoundOpening, now: number): string[] {
  const snapshot = store.snapshot()
  if (!snapshot || !isActive(snapshot) || store.appliedChecks().includes(opening.checkId)) return []
  const rounds = store.rounds()
  const open = rounds.find((round) => round.checkId === opening.checkId)
  if (open) return waitingKeys(open)
  const round: Round = { ...opening, places: opening.places.map((place) => ({ ...place, verdict: null })) }
  const next = [...rounds, round]
  const overflow = next.length - MAX_OPEN_ROUNDS
  store.setRounds(next.map((r, i) => (i < overflow ? { ...r, deadline: Math.min(r.deadline, now) } : r)))
  return waitingKeys(round)
}

/** Puts one location's verdict in its round; false when no open round waits for it. */
export function fillRoundIn(
  store: MonitorStore,
  checkId: string,
  location: string,
  verdict: Verdict,
): boolean {
  const rounds = store.rounds()
  const index = rounds.findIndex((round) => round.checkId === checkId)
  const round = rounds[index]
  const filled = round ? fillPlace(round, location, verdict) : null
  if (!filled) return false
  store.setRounds(rounds.with(index, filled))
  return true
}

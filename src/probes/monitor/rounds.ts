import type { Verdict } from '../checks/verdict'
import {
  dueRounds,
  fillPlace,
  judgeRound,
  MAX_OPEN_ROUNDS,
  type Round,
  unanswered,
  waitingKeys,
} from '../locations/round'
import { isActive } from './api'
import { applyCheck } from './apply-check'
import type { MonitorContext } from './context'
import type { StoredResult } from './results-store'
import type { RoundOpening } from './rpc'
import type { MonitorStore } from './store'

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

/** The location a round's one result was measured at: its only place's, or null over several. */
export function soleLocation(round: Round): string | null {
  return round.places.length === 1 ? (round.places[0]?.key ?? null) : null
}

/** Each location's own verdict in a round over several (an empty place failed), for its location's history. */
export function locationShares(round: Round): StoredResult[] {
  if (round.places.length < 2) return []
  return round.places.map((place) => {
    const { outcome, latencyMs, detail } = place.verdict ?? unanswered(round, place)
    return { at: round.at, outcome, latencyMs, detail, location: place.key }
  })
}

/** Judges the rounds that are complete or past their deadline, oldest first, each as one check result. */
export function judgeRounds(monitor: MonitorContext, now: number): boolean {
  const { store } = monitor
  const { due, open } = dueRounds(store.rounds(), now)
  if (due.length === 0) return false
  store.setRounds(open)
  const config = store.snapshot()?.config
  const confirmations = config && 'confirmations' in config ? config.confirmations : undefined
  let urgent = false
  for (const round of due) {
    const result = { checkId: round.checkId, at: round.at, ...judgeRound(round, confirmations) }
    urgent = applyCheck(monitor, result, soleLocation(round), locationShares(round)) || urgent
  }
  return urgent
}

import type { Verdict } from '../checks/verdict'

// A round: one scheduled check of a probe with node locations, run from each of its locations at once. The
// monitor holds the open rounds; each location's verdict fills its place; a round is judged as one result once
// every place is filled or its deadline passes (a place still empty then is a failure: the node did not answer).

/** One location of a round: `edge` or a node id, how people read it, and its verdict once it came. */
export interface RoundPlace {
  key: string
  kind: 'edge' | 'node'
  /** `edge`, or `node <name>`. */
  label: string
  verdict: Verdict | null
}

export interface Round {
  checkId: string
  /** When the round opened (ms): the time of its result. */
  at: number
  /** When a place still empty counts as failed. */
  deadline: number
  places: RoundPlace[]
}

/** Rounds one monitor keeps open at most; opening one more judges the oldest at once. */
export const MAX_OPEN_ROUNDS = 20
const MAX_DETAIL = 1000

/** The round with `key`'s verdict in place; null when the round has no such place or it is filled already. */
export function fillPlace(round: Round, key: string, verdict: Verdict): Round | null {
  const place = round.places.find((p) => p.key === key)
  if (!place || place.verdict !== null) return null
  return { ...round, places: round.places.map((p) => (p === place ? { ...p, verdict } : p)) }
}

/** The places still waiting for a verdict. */
export function waitingKeys(round: Round): string[] {
  return round.places.filter((p) => p.verdict === null).map((p) => p.key)
}

/** The verdict of a place still empty when its round is judged. */
export function unanswered(round: Round, place: RoundPlace): Verdict {
  const seconds = Math.round((round.deadline - round.at) / 1000)
  const detail =
    place.kind === 'node' ? `did not answer within ${seconds} s` : `did not finish within ${seconds} s`
  return { outcome: 'down', latencyMs: null, detail }
}

function shorten(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text
}

/** One location's verdict in a judged round: the location (`edge` or a node id) it came from. */
export type LocationVerdict = Verdict & { location: string }

/** A judged round: its one verdict, the location when there was only one, and each location's own verdict. */
export type RoundVerdict = Verdict & { location: string | null; places: LocationVerdict[] }

/**
 * The round's one result: with a single location, its verdict; with several, `down` when at least
 * `confirmations` locations failed (all of them when unset), `degraded` when fewer did (or none failed and some
 * were degraded), else `up`, with the slowest latency. The detail names each location before its own (`node
 * db-1: connected`). A place still empty counts as failed: a lost answer never leaves a probe up.
 */
export function judgeRound(round: Round, confirmations?: number): RoundVerdict {
  const verdicts = round.places.map((place) => ({
    place,
    verdict: place.verdict ?? unanswered(round, place),
  }))
  const places = verdicts.map(({ place, verdict }) => ({ ...verdict, location: place.key }))
  const [only] = verdicts
  if (verdicts.length === 1 && only)
    return {
      ...only.verdict,
      detail: shorten(`${only.place.label}: ${only.verdict.detail}`),
      location: only.place.key,
      places,
    }
  const failed = verdicts.filter(({ verdict }) => verdict.outcome === 'down').length
  const needed = Math.min(confirmations ?? verdicts.length, verdicts.length)
  const outcome =
    failed >= needed
      ? 'down'
      : failed > 0 || verdicts.some(({ verdict }) => verdict.outcome === 'degraded')
        ? 'degraded'
        : 'up'
  const timed = verdicts.flatMap(({ verdict }) => (verdict.latencyMs === null ? [] : [verdict.latencyMs]))
  const each = verdicts.map(({ place, verdict }) => `${place.label}: ${verdict.detail}`).join('; ')
  const summary =
    failed === 0
      ? each
      : failed === verdicts.length
        ? `all ${failed} locations failed — ${each}`
        : `${failed} of ${verdicts.length} locations failed — ${each}`
  const latencyMs = timed.length > 0 ? Math.max(...timed) : null
  return { outcome, latencyMs, detail: shorten(summary), location: null, places }
}

/**
 * Splits the open rounds, oldest first, into those judged now and those still open: rounds are judged in the
 * order they opened, each once it is complete or past its deadline, so a late one holds the younger back.
 */
export function dueRounds(rounds: readonly Round[], now: number): { due: Round[]; open: Round[] } {
  let i = 0
  while (i < rounds.length) {
    const round = rounds[i]
    if (!round || (waitingKeys(round).length > 0 && round.deadline > now)) break
    i++
  }
  return { due: rounds.slice(0, i), open: rounds.slice(i) }
}

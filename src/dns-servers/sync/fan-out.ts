import { PowerDnsError } from '../../outside/powerdns'
import { AppError, invalid } from '../../rpc/errors'
import type { LiveBox } from '../nameservers/box-clients'

/** A failure as one line for people: PowerDNS's own words, never a stack. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export interface BoxOutcome {
  box: LiveBox
  error: string | null
  /** PowerDNS refused the change as invalid (422), as opposed to failing or not answering. */
  rejected: boolean
}

export function tookIt(box: LiveBox): BoxOutcome {
  return { box, error: null, rejected: false }
}

export function missedIt(box: LiveBox, error: unknown): BoxOutcome {
  return {
    box,
    error: errorText(error),
    rejected: error instanceof PowerDnsError && error.kind === 'rejected',
  }
}

/** Runs `write` on every box at once; one box failing or hanging never stops the others. */
export async function writeToBoxes(
  boxes: readonly LiveBox[],
  write: (box: LiveBox) => Promise<void>,
): Promise<BoxOutcome[]> {
  const settled = await Promise.allSettled(boxes.map((box) => write(box)))
  return boxes.map((box, i) => {
    const result = settled[i]
    return result?.status === 'rejected' ? missedIt(box, result.reason) : tookIt(box)
  })
}

/** A change counts once a box holding the zone's current records took it: that box can pass it on. */
export function landedOnCurrent(outcome: BoxOutcome): boolean {
  return outcome.error === null && outcome.box.recordsCurrent
}

/**
 * Why a change no box with current records took is refused: 400 naming `fieldFor(error)` when every such box
 * refused the data itself (the data is wrong, not the boxes; null fieldFor when a refusal says nothing about
 * the input), otherwise 502 listing each box and naming the behind boxes that applied it anyway.
 */
export function refusal(
  outcomes: readonly BoxOutcome[],
  fieldFor: ((error: string) => string) | null,
): AppError {
  const current = outcomes.filter((o) => o.box.recordsCurrent)
  const rejection = current.find((o) => o.rejected)
  if (fieldFor && rejection?.error && current.every((o) => o.rejected)) {
    return invalid(fieldFor(rejection.error), rejection.error)
  }
  const detail = outcomes
    .map((o) => `${o.box.hostname}: ${o.error ?? 'applied it, but it is behind on earlier changes'}`)
    .join('; ')
  const applied = outcomes.filter((o) => o.error === null).map((o) => o.box.hostname)
  const undo = applied.length
    ? `; ${applied.join(', ')} applied it and will serve it until a sync, queued now, copies the zone back`
    : ''
  return new AppError(
    'upstream_failed',
    `no up-to-date nameserver box took the change (${detail || 'no boxes'})${undo}`,
  )
}

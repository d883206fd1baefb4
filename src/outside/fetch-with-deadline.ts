import { type NoAnswerKind, whyUnanswered } from './why-unanswered'

/** An outgoing request's fate: an answer (any status, 3xx included) or why none came, in an operator's words. */
export type OutboundAnswer =
  | { answered: true; response: Response }
  | {
      answered: false
      /** The request's own deadline passed. */
      timedOut: boolean
      /** `refused`: the outbound rule kept it from going out, and retrying will not change that. */
      refused: boolean
      /** What kept the answer away (see why-unanswered.ts); `outbound-rule` when it never went out. */
      kind: NoAnswerKind | 'outbound-rule'
      reason: string
    }

/**
 * fetch with a deadline that never follows redirects, so a credential header (API key, token, signature)
 * cannot travel to another origin. It checks no destination: only fetchOutbound and the operator's own DoH
 * resolver call it. A failure other than the deadline is told apart with what is left of it (whyUnanswered).
 */
export async function fetchWithDeadline(
  url: string | URL,
  init: RequestInit,
  timeoutMs: number,
): Promise<OutboundAnswer> {
  const started = Date.now()
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
    return { answered: true, response }
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      const reason = `timed out after ${timeoutMs / 1000} s`
      return { answered: false, timedOut: true, refused: false, kind: 'timed-out', reason }
    }
    const why = await whyUnanswered(new URL(url), error, timeoutMs - (Date.now() - started))
    return { answered: false, timedOut: false, refused: false, ...why }
  }
}

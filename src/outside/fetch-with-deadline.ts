/** An outgoing request's fate: an answer (any status, 3xx included) or why none came, in an operator's words. */
export type OutboundAnswer =
  | { answered: true; response: Response }
  /** `refused`: the outbound rule kept it from going out, and retrying will not change that. */
  | { answered: false; timedOut: boolean; refused: boolean; reason: string }

/**
 * fetch with a deadline that never follows redirects, so a credential header (API key, token, signature)
 * cannot travel to another origin. It checks no destination: only fetchOutbound and the operator's own DoH
 * resolver call it.
 */
export async function fetchWithDeadline(
  url: string | URL,
  init: RequestInit,
  timeoutMs: number,
): Promise<OutboundAnswer> {
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
    return { answered: true, response }
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    const reason = timedOut
      ? `timed out after ${timeoutMs / 1000} s`
      : error instanceof Error
        ? error.message
        : String(error)
    return { answered: false, timedOut, refused: false, reason }
  }
}

import type { Principal } from '../../auth/principal'
import { AppError } from '../../rpc/errors'

/** Open probes.watch streams one person may hold at once (a browser tab each), whatever credential opens them. */
export const WATCH_STREAMS_PER_PRINCIPAL = 10
/** Open probes.watch streams the hub holds at once, for everyone. */
export const WATCH_STREAMS_TOTAL = 500
/**
 * The Retry-After of a refused stream: the keepalive period, within which the hub finds the streams whose reader
 * left and frees their places (every stream also ends itself within 5 minutes).
 */
export const WATCH_CAP_RETRY_AFTER_SECONDS = 20

/**
 * Whose streams a principal's count: the user behind a session, an API token or a site token (minting more
 * tokens opens no more streams), or the caller with no identity.
 */
export function watchPrincipalKey(principal: Principal): string {
  return principal.kind === 'anonymous' ? 'anonymous' : `user:${principal.userId}`
}

/** The hub's count of open streams per principal and in total. */
export class WatchCaps {
  private readonly open = new Map<string, number>()
  private total = 0

  constructor(
    private readonly perPrincipal = WATCH_STREAMS_PER_PRINCIPAL,
    private readonly inTotal = WATCH_STREAMS_TOTAL,
  ) {}

  /** Counts a new stream of `key` in; answers why not (nothing counted) when a cap is reached, else null. */
  admit(key: string): string | null {
    const mine = this.open.get(key) ?? 0
    if (mine >= this.perPrincipal)
      return `this principal already holds ${this.perPrincipal} open probes.watch streams; close one or wait`
    if (this.total >= this.inTotal)
      return `the panel already holds ${this.inTotal} open probes.watch streams; wait and try again`
    this.open.set(key, mine + 1)
    this.total += 1
    return null
  }

  /** Counts a closed stream of `key` out (once per admitted stream). */
  release(key: string): void {
    const mine = this.open.get(key) ?? 0
    if (mine === 0) return
    if (mine === 1) this.open.delete(key)
    else this.open.set(key, mine - 1)
    this.total -= 1
  }
}

/** The hub's answer to a stream over a cap (read back by `assertStreamAdmitted`). */
export function capReachedResponse(reason: string): Response {
  return new Response(reason, { status: 429 })
}

/** Turns the hub's cap refusal into the caller's 429 problem, with Retry-After. */
export async function assertStreamAdmitted(response: Response): Promise<void> {
  if (response.status !== 429) return
  throw new AppError('rate_limited', await response.text(), {
    retryAfterSeconds: WATCH_CAP_RETRY_AFTER_SECONDS,
  })
}

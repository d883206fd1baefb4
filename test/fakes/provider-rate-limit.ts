import type { FakeHandler } from '../helpers/outbound'

export interface ProviderLimit {
  /** Requests the provider serves per token in any stretch of `windowMs` (its published limit, scaled down). */
  limit: number
  windowMs: number
  /** The provider's own answer to a request over the limit, given the seconds until one fits again. */
  refuse(retryAfterSeconds: number): Response
}

export interface LimitedFake {
  handle: FakeHandler
  /** Requests served, and refused for the limit. */
  readonly counts: { served: number; refused: number }
}

/**
 * A provider fake behind its rate limit, kept on `Date.now()` (a test moves it with fake timers): a request over
 * the limit in the sliding window is refused in the provider's shape with the wait until the oldest one leaves.
 * The fakes take one token each, so the window is the token's.
 */
export function withRateLimit(handle: FakeHandler, { limit, windowMs, refuse }: ProviderLimit): LimitedFake {
  const served: number[] = []
  const counts = { served: 0, refused: 0 }
  return {
    counts,
    handle(request) {
      const now = Date.now()
      while (served.length > 0 && (served[0] ?? 0) <= now - windowMs) served.shift()
      if (served.length >= limit) {
        counts.refused++
        return refuse(Math.max(1, Math.ceil(((served[0] ?? now) + windowMs - now) / 1000)))
      }
      served.push(now)
      counts.served++
      return handle(request)
    },
  }
}

import { DurableObject } from 'cloudflare:workers'

export interface RateVerdict {
  allowed: boolean
  retryAfterSeconds: number
  /** When the hit was recorded (pass it to `refund`); 0 when refused. */
  at: number
}

/** A sliding window of hits for one key (an email, a client address): acquires, refunds and clears them. */
export class RateLimiter extends DurableObject {
  // The synchronous storage API: a read and the write that follows it cannot interleave with another call.
  private hits(windowMs: number, now: number): number[] {
    return (this.ctx.storage.kv.get<number[]>('hits') ?? []).filter((at) => at > now - windowMs)
  }

  /**
   * Records a hit when fewer than `limit` fall in the window, in one step, so parallel callers can never together
   * pass more than `limit`; when refused, says when the oldest counted hit leaves the window.
   */
  async tryAcquire(limit: number, windowMs: number, now = Date.now()): Promise<RateVerdict> {
    const hits = this.hits(windowMs, now)
    if (hits.length >= limit) {
      const oldest = hits[hits.length - limit] ?? now
      const retryAfterSeconds = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000))
      return { allowed: false, retryAfterSeconds, at: 0 }
    }
    hits.push(now)
    this.ctx.storage.kv.put('hits', hits)
    return { allowed: true, retryAfterSeconds: 0, at: now }
  }

  /** Gives back one hit recorded at `at` (an attempt that turned out not to count). */
  async refund(at: number): Promise<void> {
    const hits = this.ctx.storage.kv.get<number[]>('hits') ?? []
    const index = hits.indexOf(at)
    if (index === -1) return
    hits.splice(index, 1)
    this.ctx.storage.kv.put('hits', hits)
  }

  async clear(): Promise<void> {
    this.ctx.storage.kv.delete('hits')
  }
}

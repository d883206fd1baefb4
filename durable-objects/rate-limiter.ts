import { DurableObject } from 'cloudflare:workers'

export interface RateVerdict {
  allowed: boolean
  retryAfterSeconds: number
  /** When the hit was recorded (pass it to `refund`); 0 when refused. */
  at: number
}

/** A lease: the call being made now, plus `held` more the caller may make until `heldUntil`. */
export interface LeaseVerdict {
  allowed: boolean
  retryAfterSeconds: number
  /** Calls granted beyond the one being made now (0 when refused or when no more were free). */
  held: number
  /** When the held calls were recorded and until when they may be made (pass it to `giveBack`). */
  heldUntil: number
}

/**
 * Held calls are granted only while more than this many stay free in the window: close to the limit every call is
 * counted one by one, so no caller is refused while another place sits on unused calls of the same window.
 */
export const LEASE_FLOOR = 32

/** A sliding window of hits for one key (an email, a client address, a token): acquires, leases and refunds them. */
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
    const verdict = this.grant(limit, windowMs, 1, 0, now)
    return {
      allowed: verdict.allowed,
      retryAfterSeconds: verdict.retryAfterSeconds,
      at: verdict.allowed ? now : 0,
    }
  }

  /**
   * Like tryAcquire for the call being made now, and grants up to `want - 1` more that the caller may make within
   * `holdMs`. Each held call is recorded as made at the end of that time, the latest moment it can be made, so a
   * window never counts fewer calls than were made in any stretch of its length.
   */
  async lease(
    limit: number,
    windowMs: number,
    want: number,
    holdMs: number,
    now = Date.now(),
  ): Promise<LeaseVerdict> {
    return this.grant(limit, windowMs, want, holdMs, now)
  }

  /** Takes back `count` held calls recorded at `heldUntil` that were not made. */
  async giveBack(heldUntil: number, count: number): Promise<void> {
    const hits = this.ctx.storage.kv.get<number[]>('hits') ?? []
    let left = count
    const kept = hits.filter((at) => !(at === heldUntil && left-- > 0))
    if (kept.length !== hits.length) this.ctx.storage.kv.put('hits', kept)
  }

  /** Gives back one hit recorded at `at` (an attempt that turned out not to count). */
  async refund(at: number): Promise<void> {
    await this.giveBack(at, 1)
  }

  async clear(): Promise<void> {
    this.ctx.storage.kv.delete('hits')
  }

  private grant(limit: number, windowMs: number, want: number, holdMs: number, now: number): LeaseVerdict {
    const hits = this.hits(windowMs, now)
    if (hits.length >= limit)
      return {
        allowed: false,
        retryAfterSeconds: retryAfter(hits, limit, windowMs, now),
        held: 0,
        heldUntil: 0,
      }
    const free = limit - hits.length - 1
    const held = free > LEASE_FLOOR ? Math.min(want - 1, free - LEASE_FLOOR) : 0
    const heldUntil = now + holdMs
    const recorded = [...hits, now, ...Array<number>(held).fill(heldUntil)].sort((a, b) => a - b)
    this.ctx.storage.kv.put('hits', recorded)
    return { allowed: true, retryAfterSeconds: 0, held, heldUntil: held > 0 ? heldUntil : 0 }
  }
}

/**
 * When a call fits again: once the oldest counted hit leaves the window. Never sooner: calls held elsewhere (hits
 * dated ahead) may be made yet, and the answer must not send a retry that is refused again.
 */
function retryAfter(hits: number[], limit: number, windowMs: number, now: number): number {
  const oldest = hits[hits.length - limit] ?? now
  return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000))
}

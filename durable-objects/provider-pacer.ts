import { DurableObject } from 'cloudflare:workers'

/**
 * The share of a provider's limit the panel's writes keep to, as a steady rate plus a burst: together 95%, the rest
 * left for the account's other calls (zone refreshes, domain checks) and whatever else uses the same token. Any
 * window of the limit's length then sees at most the burst plus the steady share.
 */
export const RATE_SHARE = 0.85
export const BURST_SHARE = 0.1

interface Pace {
  /** Milliseconds one call takes of the steady rate. */
  spacing: number
  /** How far ahead of the steady rate calls may run (the burst). */
  tolerance: number
}

function paceOf(limit: number, windowMs: number): Pace {
  const spacing = windowMs / (limit * RATE_SHARE)
  return { spacing, tolerance: Math.max(1, Math.floor(limit * BURST_SHARE)) * spacing }
}

/**
 * The pace of one DNS account's calls to its provider, a generic cell rate (a token bucket kept as the moment it
 * is empty again): hands each write a turn, the moment it may make its calls, and holds every turn back while the
 * provider has said (a 429) that the account is over its limit. A turn is kept by its key, so a job that comes back
 * for it, or is redelivered, gets the same moment instead of a second one.
 */
export class ProviderPacer extends DurableObject {
  /**
   * The moment the write `key` may make its `cost` calls: `now` when it may go at once (its turn is then spent),
   * else a later moment to come back at.
   */
  async turn(key: string, cost: number, limit: number, windowMs: number, now = Date.now()): Promise<number> {
    const kv = this.ctx.storage.kv
    const held = kv.get<number>(`turn:${key}`)
    const blocked = kv.get<number>('blocked') ?? 0
    if (held !== undefined && held >= blocked) {
      if (held > now) return held
      kv.delete(`turn:${key}`)
      return now
    }
    // No turn yet, or one that falls while the provider refuses: the next free moment after the refusal ends.
    const at = this.take(cost, paceOf(limit, windowMs), blocked, now)
    if (at <= now) {
      kv.delete(`turn:${key}`)
      return now
    }
    kv.put(`turn:${key}`, at)
    return at
  }

  /** Spends `cost` calls when they fit now (within the burst, the provider not refusing); else nothing. */
  async spendNow(cost: number, limit: number, windowMs: number, now = Date.now()): Promise<boolean> {
    const pace = paceOf(limit, windowMs)
    const blocked = this.ctx.storage.kv.get<number>('blocked') ?? 0
    if (this.freeAt(pace, blocked, now) > now) return false
    this.take(cost, pace, blocked, now)
    return true
  }

  /** The provider refuses the account's calls until `until` (its Retry-After): no turn falls before it. */
  async block(until: number): Promise<void> {
    const kv = this.ctx.storage.kv
    if (until > (kv.get<number>('blocked') ?? 0)) kv.put('blocked', until)
  }

  private freeAt(pace: Pace, blocked: number, now: number): number {
    const empty = Math.max(this.ctx.storage.kv.get<number>('empty') ?? 0, now)
    return Math.max(empty - pace.tolerance, blocked, now)
  }

  // Books `cost` calls at the first moment they fit and answers it.
  private take(cost: number, pace: Pace, blocked: number, now: number): number {
    const at = this.freeAt(pace, blocked, now)
    const empty = Math.max(this.ctx.storage.kv.get<number>('empty') ?? 0, now)
    this.ctx.storage.kv.put('empty', empty + cost * pace.spacing)
    return at
  }
}

import { DurableObject } from 'cloudflare:workers'

/**
 * The share of a provider's limit the panel's writes are spread over: the rest is left for the account's other
 * calls (zone refreshes, domain checks, removes) and for whatever else uses the same token.
 */
export const PACE_SHARE = 0.9

/**
 * The pace of one DNS account's calls to its provider: hands each write a turn, the moment it may make its calls,
 * spaced so that the account's writes never ask more than PACE_SHARE of the limit in any window; and holds every
 * turn back while the provider has said (a 429) that the account is over its limit. A turn is kept by its key, so a
 * job that comes back for it (or is redelivered) gets the same moment instead of a second one.
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
    const free = Math.max(kv.get<number>('next') ?? 0, now, blocked)
    kv.put('next', free + (cost * windowMs) / (limit * PACE_SHARE))
    if (free <= now) {
      kv.delete(`turn:${key}`)
      return now
    }
    kv.put(`turn:${key}`, free)
    return free
  }

  /** Spends `cost` calls when they fit now (no turn is waiting and the provider is not refusing); else nothing. */
  async spendNow(cost: number, limit: number, windowMs: number, now = Date.now()): Promise<boolean> {
    const kv = this.ctx.storage.kv
    const free = Math.max(kv.get<number>('next') ?? 0, kv.get<number>('blocked') ?? 0)
    if (free > now) return false
    kv.put('next', now + (cost * windowMs) / (limit * PACE_SHARE))
    return true
  }

  /** The provider refuses the account's calls until `until` (its Retry-After): no turn falls before it. */
  async block(until: number): Promise<void> {
    const kv = this.ctx.storage.kv
    if (until > (kv.get<number>('blocked') ?? 0)) kv.put('blocked', until)
  }
}

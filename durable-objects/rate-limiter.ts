import { DurableObject } from 'cloudflare:workers'

export interface RateVerdict {
  allowed: boolean
  retryAfterSeconds: number
}

/** A sliding window of hits for one key (an email, a token): counts, records and clears them. */
export class RateLimiter extends DurableObject {
  private async hits(windowMs: number, now: number): Promise<number[]> {
    const stored = (await this.ctx.storage.get<number[]>('hits')) ?? []
    return stored.filter((at) => at > now - windowMs)
  }

  /** Whether fewer than `limit` hits fall in the window; if not, when the oldest leaves it. */
  async check(limit: number, windowMs: number, now = Date.now()): Promise<RateVerdict> {
    const hits = await this.hits(windowMs, now)
    if (hits.length < limit) return { allowed: true, retryAfterSeconds: 0 }
    const oldest = hits[hits.length - limit] ?? now
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) }
  }

  async record(windowMs: number, now = Date.now()): Promise<void> {
    const hits = await this.hits(windowMs, now)
    hits.push(now)
    await this.ctx.storage.put('hits', hits)
  }

  async clear(): Promise<void> {
    await this.ctx.storage.delete('hits')
  }
}

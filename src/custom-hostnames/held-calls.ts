import type { LeaseVerdict } from '../../durable-objects/rate-limiter'
import { BoundedMap } from '../lib/bounded-map'

/** How long an isolate may make the calls its window's RateLimiter granted ahead. */
export const HOLD_MS = 2_000
/** The most calls an isolate asks for at once for one window. */
export const MAX_LEASE = 16

interface Lease {
  left: number
  /** Its end on this isolate's clock, never later than the end the RateLimiter recorded its held calls at. */
  until: number
}

interface Window {
  lease: Lease | null
  /** The size of the last lease, while it lasts: a caller that used it up gets a bigger one. */
  lastSize: number
  /** The lease being asked for: callers that find nothing left wait for it rather than ask too. */
  asking: Promise<unknown> | null
  waiting: number
}

/** At most 10,000 windows; the oldest goes first (its held calls still go back at their lease's end). */
const windows = new BoundedMap<string, Window>(10_000)

/** The window's RateLimiter, as spendCall uses it. */
export interface Leaser {
  lease(want: number, holdMs: number): Promise<LeaseVerdict>
  giveBack(heldUntil: number, count: number): Promise<void>
}

/**
 * Spends one call of the window `key`: one this isolate holds, else one from a lease it asks the RateLimiter for,
 * and answers null; answers the RateLimiter's refusal when the window is full. One lease per window is asked at a
 * time, for the call being made plus those waiting for it, and for twice the last lease when that one was used up
 * before its end (a busy caller), up to MAX_LEASE. Held calls not made by the lease's end go back, from `waitUntil`.
 */
export async function spendCall(
  key: string,
  leaser: Leaser,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<LeaseVerdict | null> {
  for (;;) {
    const now = Date.now()
    const window = windows.get(key) ?? remember(key)
    const { lease } = window
    if (lease && now < lease.until && lease.left > 0) {
      lease.left--
      return null
    }
    if (!window.asking) return ask(window, leaser, waitUntil, now)
    window.waiting++
    try {
      await window.asking
    } catch {
      // The asker reports its own failure; a waiter asks again itself.
    } finally {
      window.waiting--
    }
  }
}

async function ask(
  window: Window,
  leaser: Leaser,
  waitUntil: (promise: Promise<unknown>) => void,
  startedAt: number,
): Promise<LeaseVerdict | null> {
  const busy = window.lease !== null && startedAt < window.lease.until
  const want = Math.min(MAX_LEASE, Math.max(window.waiting + 1, busy ? window.lastSize * 2 : 1))
  const asking = leaser.lease(want, HOLD_MS)
  window.asking = asking
  let verdict: LeaseVerdict
  try {
    verdict = await asking
  } finally {
    window.asking = null
  }
  if (!verdict.allowed) return verdict
  const lease: Lease = { left: verdict.held, until: startedAt + HOLD_MS }
  window.lease = lease
  window.lastSize = verdict.held + 1
  if (verdict.held > 0) waitUntil(giveBackUnused(lease, verdict.heldUntil, leaser))
  return null
}

function remember(key: string): Window {
  const window: Window = { lease: null, lastSize: 0, asking: null, waiting: 0 }
  windows.set(key, window)
  return window
}

async function giveBackUnused(lease: Lease, heldUntil: number, leaser: Leaser): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, HOLD_MS))
  const unused = lease.left
  lease.left = 0
  if (unused > 0) await leaser.giveBack(heldUntil, unused)
}

import type { Principal } from '../auth/principal'
import type { Env } from '../env'
import { AppError } from '../rpc/errors'
import { spendCall } from './held-calls'

const HOUR_MS = 60 * 60 * 1000

/**
 * The four budgets of the custom-hostnames calls, per token (per user for a session), each a rolling hour kept by
 * its own RateLimiter. Probe and register are the contract's; status and list get a window wide enough for an app
 * that polls status while its customers' records and certificates arrive, so polling never eats into probe.
 */
export const HOSTNAME_WINDOWS = {
  probe: { limit: 600, calls: 'probe' },
  register: { limit: 120, calls: 'register' },
  status: { limit: 3600, calls: 'status and list' },
  remove: { limit: 120, calls: 'remove' },
} as const
export type HostnameWindow = keyof typeof HOSTNAME_WINDOWS

function callerKey(principal: Principal): string {
  switch (principal.kind) {
    case 'token':
    case 'site-token':
      return `token:${principal.tokenId}`
    case 'session':
      return `user:${principal.userId}`
    case 'anonymous':
      return 'anonymous'
  }
}

/** The name of the RateLimiter that keeps the caller's window. */
export function hostnameWindowKey(window: HostnameWindow, principal: Principal): string {
  return `custom-hostnames:${window}:${callerKey(principal)}`
}

/**
 * Spends one call of the window, or answers 429 with a Retry-After at which a retry succeeds. A caller busy on one
 * isolate is granted calls ahead (held-calls.ts), so most of its calls spend one held here instead of a round trip
 * to its RateLimiter; the window still never admits more than its limit in any hour.
 */
export async function spendHostnameCall(
  env: Env,
  principal: Principal,
  window: HostnameWindow,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<void> {
  const { limit, calls } = HOSTNAME_WINDOWS[window]
  const key = hostnameWindowKey(window, principal)
  // Named only when asked: a call spent from what this isolate holds never reaches its RateLimiter.
  const limiter = () => env.RATE_LIMITER.getByName(key)
  const refused = await spendCall(
    key,
    {
      lease: (want, holdMs) => limiter().lease(limit, HOUR_MS, want, holdMs),
      giveBack: (heldUntil, count) => limiter().giveBack(heldUntil, count),
    },
    waitUntil,
  )
  if (refused) {
    throw new AppError(
      'rate_limited',
      `the ${window} window is full: ${limit} ${calls} calls in the last hour for this token; retry in ${refused.retryAfterSeconds} s`,
      { retryAfterSeconds: refused.retryAfterSeconds },
    )
  }
}

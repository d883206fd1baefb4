import type { Principal } from '../auth/principal'
import type { Env } from '../env'
import { AppError } from '../rpc/errors'

const HOUR_MS = 60 * 60 * 1000

/**
 * The two budgets of the custom-hostnames calls, per token (per user for a session), each a rolling hour kept
 * by its own RateLimiter: reads (probe, status, list) spend `probe`; changes (register, remove) spend `register`.
 */
export const HOSTNAME_WINDOWS = {
  probe: { limit: 600, label: 'probe, status and list' },
  register: { limit: 120, label: 'register and remove' },
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

/** Spends one call of the window, or answers 429 with a Retry-After at which a retry succeeds. */
export async function spendHostnameCall(
  env: Env,
  principal: Principal,
  window: HostnameWindow,
): Promise<void> {
  const { limit, label } = HOSTNAME_WINDOWS[window]
  const key = `custom-hostnames:${window}:${callerKey(principal)}`
  const verdict = await env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key)).tryAcquire(limit, HOUR_MS)
  if (!verdict.allowed) {
    throw new AppError('rate_limited', `over ${limit} ${label} calls in the last hour for this token`, {
      retryAfterSeconds: verdict.retryAfterSeconds,
    })
  }
}

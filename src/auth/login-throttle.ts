import type { Env } from '../env'

const MAX_FAILURES = 10
const WINDOW_MS = 15 * 60 * 1000

/** Failed sign-ins per email: after 10 in 15 minutes, further attempts are refused until the window slides. */
export function loginThrottle(env: Env, email: string) {
  const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login:${email}`))
  return {
    check: () => limiter.check(MAX_FAILURES, WINDOW_MS),
    recordFailure: () => limiter.record(WINDOW_MS),
    clear: () => limiter.clear(),
  }
}

import type { Env } from '../env'
import { AppError } from '../rpc/errors'

const WINDOW_MS = 15 * 60 * 1000
const PER_EMAIL = 10
// Generous enough for an office behind one NAT, small enough that rotating emails cannot flood the audit log.
const PER_ADDRESS = 30
// Requests without cf-connecting-ip (never the case behind Cloudflare's edge) share one budget.
const UNKNOWN_ADDRESS = 'unknown'

export interface SignInAttempt {
  /** The password checked out: the attempt does not count, and the email's failures are forgotten. */
  succeeded(): Promise<void>
}

/**
 * Takes one sign-in attempt from the client address's budget (30 per 15 minutes) and from the email's (10 per
 * 15 minutes) before the password is checked, so parallel guesses cannot get past either; 429 when one is spent.
 */
export async function acquireSignInAttempt(
  env: Env,
  email: string,
  address: string | null,
): Promise<SignInAttempt> {
  const byAddress = limiter(env, `login-address:${address ?? UNKNOWN_ADDRESS}`)
  const fromAddress = await byAddress.tryAcquire(PER_ADDRESS, WINDOW_MS)
  if (!fromAddress.allowed) {
    throw new AppError('rate_limited', 'too many failed sign-ins from this address; wait and try again', {
      retryAfterSeconds: fromAddress.retryAfterSeconds,
    })
  }
  const byEmail = limiter(env, `login:${email}`)
  const forEmail = await byEmail.tryAcquire(PER_EMAIL, WINDOW_MS)
  if (!forEmail.allowed) {
    // Refused before any password check: it must not use up the address's budget as well.
    await byAddress.refund(fromAddress.at)
    throw new AppError('rate_limited', 'too many failed sign-ins for this email; wait and try again', {
      retryAfterSeconds: forEmail.retryAfterSeconds,
    })
  }
  return {
    async succeeded() {
      await Promise.all([byAddress.refund(fromAddress.at), byEmail.clear()])
    },
  }
}

function limiter(env: Env, key: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key))
}

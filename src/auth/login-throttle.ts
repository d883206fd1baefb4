import type { Env } from '../env'
import { AppError } from '../rpc/errors'

const WINDOW_MS = 15 * 60 * 1000
/** Failures one client may make on one email: someone else's failures never refuse this client. */
const PER_EMAIL_AND_CLIENT = 10
// Generous enough for an office behind one NAT, small enough that rotating emails cannot flood the audit log.
const PER_CLIENT = 30
/**
 * Failures on one email from every client together before the email is under pressure (many clients guessing
 * one account). Under pressure nothing is refused outright, which would let anyone lock the account: each client
 * gets a smaller budget on that email and every attempt on it waits a while first.
 */
const PER_EMAIL = 100
const PER_EMAIL_AND_CLIENT_UNDER_PRESSURE = 3
const PRESSURE_DELAY_MS = 2000
// Callers off Cloudflare's edge cannot be told apart (see client-address.ts): they share one client budget.
const UNKNOWN_CLIENT = 'unknown'

export interface SignInAttempt {
  /** The password checked out: the attempt does not count, and this client's failures on the email are forgotten. */
  succeeded(): Promise<void>
}

/**
 * Takes one sign-in attempt, before the password is checked (so parallel guesses cannot get past a budget), from
 * the client's budget (30 per 15 minutes), the email's from this client (10) and the email's from everyone (100,
 * whose exhaustion only tightens the per-client budget on the email to 3 and delays the attempt); 429 when the
 * client's or the client's budget on the email is spent.
 */
export async function acquireSignInAttempt(
  env: Env,
  email: string,
  address: string | null,
): Promise<SignInAttempt> {
  const client = address ?? UNKNOWN_CLIENT
  const byClient = limiter(env, `login-address:${client}`)
  const fromClient = await byClient.tryAcquire(PER_CLIENT, WINDOW_MS)
  if (!fromClient.allowed) {
    throw new AppError('rate_limited', 'too many failed sign-ins from this client; wait and try again', {
      retryAfterSeconds: fromClient.retryAfterSeconds,
    })
  }
  const byEmail = limiter(env, `login:${email}`)
  const forEmail = await byEmail.tryAcquire(PER_EMAIL, WINDOW_MS)
  const underPressure = !forEmail.allowed
  // A space never occurs in an email or an address.
  const byPair = limiter(env, `login-pair:${client} ${email}`)
  const pairLimit = underPressure ? PER_EMAIL_AND_CLIENT_UNDER_PRESSURE : PER_EMAIL_AND_CLIENT
  const forPair = await byPair.tryAcquire(pairLimit, WINDOW_MS)
  if (!forPair.allowed) {
    // Refused before any password check: it must not use up the other budgets as well.
    await Promise.all([byClient.refund(fromClient.at), forEmail.allowed && byEmail.refund(forEmail.at)])
    throw new AppError(
      'rate_limited',
      'too many failed sign-ins for this email from this client; wait and try again',
      { retryAfterSeconds: forPair.retryAfterSeconds },
    )
  }
  if (underPressure) await scheduler.wait(PRESSURE_DELAY_MS)
  return {
    async succeeded() {
      await Promise.all([
        byClient.refund(fromClient.at),
        forEmail.allowed && byEmail.refund(forEmail.at),
        byPair.clear(),
      ])
    },
  }
}

function limiter(env: Env, key: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key))
}

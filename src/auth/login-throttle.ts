import type { Env } from '../env'
import { AppError } from '../rpc/errors'

const WINDOW_MS = 15 * 60 * 1000
/** Failures one client may make on one email before its attempts on it are slowed. */
const PER_EMAIL_AND_CLIENT = 10
// Generous enough for an office behind one NAT, small enough that rotating emails cannot flood the audit log.
const PER_CLIENT = 30
/**
 * Failures on one email from every client together before the email is under pressure (many clients guessing
 * one account): each client's budget on that email drops and every attempt on it is slowed.
 */
const PER_EMAIL = 100
const PER_EMAIL_AND_CLIENT_UNDER_PRESSURE = 3
/**
 * How long an attempt over a budget, or on an email under pressure, waits before its password is checked. It
 * is paid by the right password too (a quicker success would tell a guess apart by its timing alone), so it
 * stays well inside what a person signing in will wait.
 */
export const SLOWED_ATTEMPT_DELAY_MS = 2000
// Callers whose address is not known (see client-address.ts) share one client budget.
const UNKNOWN_CLIENT = 'unknown'

export interface SignInAttempt {
  /** The password checked out: the attempt does not count, and a known client's failures on the email are forgotten. */
  succeeded(): Promise<void>
  /**
   * The password was wrong. Over a budget this throws the 429 the caller answers instead of its own failure (not
   * audited, so one client adds at most 30 audit entries per 15 minutes); within budget it returns.
   */
  failed(): void
}

/**
 * Takes one sign-in attempt, before the password is checked (so parallel guesses cannot get past a budget), from
 * the client's budget (30 per 15 minutes), the email's from this client (10) and the email's from everyone (100,
 * whose exhaustion tightens the per-client budget on the email to 3). Nothing here refuses: an attempt over a
 * budget, or on an email under pressure, waits SLOWED_ATTEMPT_DELAY_MS and is then checked like any other, so the
 * right password always signs in and a stranger's failures can never lock anyone out.
 */
export async function acquireSignInAttempt(
  env: Env,
  email: string,
  address: string | null,
): Promise<SignInAttempt> {
  const client = address ?? UNKNOWN_CLIENT
  const byClient = limiter(env, `login-address:${client}`)
  const byEmail = limiter(env, `login:${email}`)
  const [fromClient, forEmail] = await Promise.all([
    byClient.tryAcquire(PER_CLIENT, WINDOW_MS),
    byEmail.tryAcquire(PER_EMAIL, WINDOW_MS),
  ])
  const underPressure = !forEmail.allowed
  // A space never occurs in an email or an address.
  const byPair = limiter(env, `login-pair:${client} ${email}`)
  const pairLimit = underPressure ? PER_EMAIL_AND_CLIENT_UNDER_PRESSURE : PER_EMAIL_AND_CLIENT
  const forPair = await byPair.tryAcquire(pairLimit, WINDOW_MS)
  const overBudget = !fromClient.allowed || !forPair.allowed
  // An attempt over one budget must not use up the others as well.
  if (overBudget) {
    await Promise.all([
      fromClient.allowed && byClient.refund(fromClient.at),
      forEmail.allowed && byEmail.refund(forEmail.at),
      forPair.allowed && byPair.refund(forPair.at),
    ])
  }
  if (overBudget || underPressure) await scheduler.wait(SLOWED_ATTEMPT_DELAY_MS)
  return {
    async succeeded() {
      if (overBudget) return
      await Promise.all([
        byClient.refund(fromClient.at),
        forEmail.allowed && byEmail.refund(forEmail.at),
        // An unknown client is everyone off the edge: one success must not give a stranger fresh guesses.
        address === null ? byPair.refund(forPair.at) : byPair.clear(),
      ])
    },
    failed() {
      if (!overBudget) return
      const retryAfterSeconds = Math.max(fromClient.retryAfterSeconds, forPair.retryAfterSeconds)
      throw new AppError(
        'rate_limited',
        `the email or password is wrong; after too many failed sign-ins ${
          fromClient.allowed ? 'for this email from this client' : 'from this client'
        } each attempt waits ${SLOWED_ATTEMPT_DELAY_MS / 1000} s, until the failures are older than 15 minutes`,
        { retryAfterSeconds },
      )
    },
  }
}

function limiter(env: Env, key: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key))
}

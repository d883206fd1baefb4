import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { backoffSeconds } from '../lib/backoff'
import { openSecret } from '../lib/secrets'
import { quotableText } from '../outside/counterpart-text'
import { sendSignedWebhook } from '../outside/webhook-sender'
import { answeredText, unreachableText } from './channels/outcome'

/** Attempts per delivery (below the queue's max_retries): backoff spreads them over about 15 minutes. */
export const NOTIFY_ATTEMPTS = 6
/** The longest a Retry-After may hold an alert back between two attempts. */
export const MAX_DELAY_SECONDS = 60 * 60

const WITHHELD = 'the attempt failed (its error text is withheld)'

/** What one attempt to notify one recipient came to; `answer` says what the recipient answered. */
export type Attempt =
  | { kind: 'delivered'; answer: string }
  | { kind: 'failed'; error: string; retryable: boolean; retryAfter: number | null }

/**
 * Logs what one attempt came to and answers the delivery job's outcome: done when delivered or when no retry can
 * mend it (or the attempts are spent), else a retry after the backoff, never sooner than the recipient's Retry-After.
 */
export async function settleAttempt(
  attempt: Attempt,
  attempts: number,
  record: (status: 'delivered' | 'pending' | 'failed', answer: string) => Promise<unknown>,
): Promise<JobOutcome> {
  if (attempt.kind === 'delivered') {
    await record('delivered', attempt.answer)
    return { kind: 'done' }
  }
  if (attempt.retryable && attempts < NOTIFY_ATTEMPTS) {
    await record('pending', attempt.error)
    const delaySeconds = Math.max(backoffSeconds(attempts), attempt.retryAfter ?? 0)
    return { kind: 'retry', delaySeconds: Math.min(MAX_DELAY_SECONDS, delaySeconds) }
  }
  await record(
    'failed',
    attempt.retryable ? `${attempt.error}; gave up after ${attempts} attempts` : attempt.error,
  )
  return { kind: 'done' }
}

/** A failure no retry can mend. */
export const permanent = (error: string): Attempt => ({
  kind: 'failed',
  error,
  retryable: false,
  retryAfter: null,
})

/**
 * POSTs `body` to `url`, signed with the sealed secret like every webhook here. Notification webhooks are always
 * signed: a receiver could not tell an unsigned alert from a forged one. A network error, 5xx or 429 is worth a
 * retry; 410 and any other answer are not. The log keeps the status and its outcome (the body is never read).
 */
export async function sendNotificationWebhook(
  env: Env,
  url: string,
  sealedSecret: string | null,
  body: string,
): Promise<Attempt> {
  if (!sealedSecret) return permanent('not sent: there is no webhook secret to sign it with')
  let secret: string
  try {
    secret = await openSecret(env, sealedSecret)
  } catch {
    return permanent('not sent: the webhook secret could not be opened with the configured keys')
  }
  const answer = await sendSignedWebhook(url, body, secret)
  if (answer.kind === 'delivered')
    return { kind: 'delivered', answer: answeredText(answer.status, null, null) }
  if (answer.kind === 'gone') return permanent(answeredText(410, null, null))
  return {
    kind: 'failed',
    error:
      answer.status === null
        ? unreachableText(answer.reason ?? answer.error, [secret])
        : answeredText(answer.status, null, answer.retryAfterSeconds),
    retryable: answer.status === null || answer.status >= 500 || answer.status === 429,
    retryAfter: answer.retryAfterSeconds,
  }
}

/** Sends one alert email through the ALERT_EMAIL binding; a refused send is worth a retry. */
export async function sendNotificationEmail(
  env: Env,
  to: string,
  message: { subject: string; text: string; headers?: Record<string, string> },
): Promise<Attempt> {
  try {
    const sent = await env.ALERT_EMAIL.send({ from: env.ALERT_EMAIL_FROM, to, ...message })
    return { kind: 'delivered', answer: sent?.messageId ? `accepted as ${sent.messageId}` : 'accepted' }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error)
    return { kind: 'failed', error: quotableText(text, []) ?? WITHHELD, retryable: true, retryAfter: null }
  }
}

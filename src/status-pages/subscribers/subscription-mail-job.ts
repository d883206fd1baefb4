import { eq } from 'drizzle-orm'
import { db } from '../../db/client'
import { statusPageEmailSubscriptions } from '../../db/schema/status-page-subscribers'
import { statusPages } from '../../db/schema/status-pages'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { backoffSeconds } from '../../lib/backoff'
import { openSecret } from '../../lib/secrets'
import { NOTIFY_ATTEMPTS, sendNotificationEmail } from '../../notifications/channels'
import { CONFIRM_LINK_HOURS, type SubscriptionMailMessage } from './email-subscriptions'
import { alreadySubscribedMail, confirmationMail } from './mail'

/**
 * `status-page.subscription-mail`: the confirmation link to a pending address, or the "already subscribed" note
 * to a confirmed one, read from the row as it is now (a newer request's link wins; an address unsubscribed
 * meanwhile gets nothing). A refused send retries with backoff up to NOTIFY_ATTEMPTS.
 */
export async function sendSubscriptionMail(
  message: SubscriptionMailMessage,
  env: Env,
  attempts: number,
): Promise<JobOutcome> {
  const [row] = await db(env.DB)
    .select({ subscription: statusPageEmailSubscriptions, slug: statusPages.slug, title: statusPages.title })
    .from(statusPageEmailSubscriptions)
    .innerJoin(statusPages, eq(statusPages.id, statusPageEmailSubscriptions.statusPageId))
    .where(eq(statusPageEmailSubscriptions.id, message.subscriptionId))
    .limit(1)
  if (!row) return { kind: 'done' }
  const { subscription } = row
  const context = {
    origin: subscription.origin,
    slug: row.slug,
    pageTitle: row.title,
    unsubscribeToken: await openSecret(env, subscription.unsubscribeTokenSealed),
  }
  const confirmSealed = subscription.confirmTokenSealed
  const mail =
    subscription.state === 'confirmed'
      ? alreadySubscribedMail(context)
      : confirmSealed
        ? confirmationMail(context, await openSecret(env, confirmSealed), CONFIRM_LINK_HOURS)
        : null
  if (!mail) return { kind: 'done' }
  const attempt = await sendNotificationEmail(env, subscription.email, mail)
  if (attempt.kind === 'delivered') return { kind: 'done' }
  if (attempt.retryable && attempts < NOTIFY_ATTEMPTS)
    return { kind: 'retry', delaySeconds: backoffSeconds(attempts), error: attempt.error }
  return { kind: 'failed', error: attempt.error }
}

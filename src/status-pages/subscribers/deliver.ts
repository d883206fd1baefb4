import { and, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { type Db, db } from '../../db/client'
import {
  statusPageAnnouncements,
  statusPageEmailSubscriptions,
  statusPageWebhooks,
} from '../../db/schema/status-page-subscribers'
import { statusPageIncidents, statusPageIncidentUpdates, statusPages } from '../../db/schema/status-pages'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { openSecret } from '../../lib/secrets'
import {
  type Attempt,
  sendNotificationEmail,
  sendNotificationWebhook,
  settleAttempt,
} from '../../notifications/channels'
import { toIncident } from '../incidents/read'
import type { AnnouncementDeliveryMessage } from './announce'
import { incidentMail } from './mail'

/** How long an attempt holds its row: well beyond a send's own timeout (10 s for a webhook). */
export const CLAIM_MS = 60_000

type AnnouncementRecord = typeof statusPageAnnouncements.$inferSelect

/** The incident as the API shows it, its page, and the update announced; undefined when any is gone. */
async function storyOf(database: Db, row: AnnouncementRecord) {
  // Three reads, not a join: D1 names a joined row's columns by name alone, and both tables have id and title.
  const [[incidentRow], updates, [page]] = await database.batch([
    database.select().from(statusPageIncidents).where(eq(statusPageIncidents.id, row.incidentId)).limit(1),
    database
      .select()
      .from(statusPageIncidentUpdates)
      .where(eq(statusPageIncidentUpdates.incidentId, row.incidentId)),
    database.select().from(statusPages).where(eq(statusPages.id, row.statusPageId)).limit(1),
  ])
  if (!incidentRow || !page) return undefined
  const incident = toIncident(incidentRow, updates)
  const update = incident.updates.find((u) => u.id === row.updateId)
  return update && { incident, update, page }
}

/** The attempt to make for the row, or why nothing may go out (then the row is skipped). */
async function attemptFor(env: Env, database: Db, row: AnnouncementRecord): Promise<Attempt | string> {
  const story = await storyOf(database, row)
  if (!story) return 'not sent: the incident or its update was removed'
  const { incident, update, page } = story
  if (row.channel === 'webhook') {
    const [hook] = await database
      .select()
      .from(statusPageWebhooks)
      .where(eq(statusPageWebhooks.id, row.subscriberId))
      .limit(1)
    if (!hook) return 'not sent: the webhook was removed before delivery'
    const origin = env.PANEL_ORIGIN ?? hook.origin
    const first = incident.updates.at(-1)?.id === update.id
    const body = JSON.stringify({
      event: first ? 'incident.created' : 'incident.updated',
      statusPage: { id: page.id, slug: page.slug, title: page.title, url: `${origin}/status/${page.slug}` },
      incident,
      update,
    })
    return sendNotificationWebhook(env, hook.url, hook.secretSealed, body)
  }
  const [subscription] = await database
    .select()
    .from(statusPageEmailSubscriptions)
    .where(eq(statusPageEmailSubscriptions.id, row.subscriberId))
    .limit(1)
  if (subscription?.state !== 'confirmed') return 'not sent: the address unsubscribed before delivery'
  if (!page.public) return 'not sent: the page is no longer public'
  const mail = incidentMail(
    {
      origin: subscription.origin,
      slug: page.slug,
      pageTitle: page.title,
      unsubscribeToken: await openSecret(env, subscription.unsubscribeTokenSealed),
    },
    incident,
    update,
  )
  return sendNotificationEmail(env, subscription.email, mail)
}

/**
 * `status-page.deliver`: claims the row (pending, and held by no other attempt) before sending, so two copies of
 * the job never both send; a row already delivered, failed or skipped sends nothing. A copy that finds the row
 * held asks to run again once the hold ends, in case the holder died. Failures retry with backoff up to
 * NOTIFY_ATTEMPTS, counted on the row across job chains.
 */
export async function deliverAnnouncement(
  message: AnnouncementDeliveryMessage,
  env: Env,
): Promise<JobOutcome> {
  const database = db(env.DB)
  const a = statusPageAnnouncements
  const now = Date.now()
  const [row] = await database
    .update(a)
    .set({ claimedUntil: new Date(now + CLAIM_MS), attempts: sql`${a.attempts} + 1` })
    .where(
      and(
        eq(a.id, message.announcementId),
        eq(a.status, 'pending'),
        or(isNull(a.claimedUntil), lt(a.claimedUntil, new Date(now))),
      ),
    )
    .returning()
  if (!row) {
    const [held] = await database
      .select({ status: a.status, claimedUntil: a.claimedUntil })
      .from(a)
      .where(eq(a.id, message.announcementId))
      .limit(1)
    if (held?.status !== 'pending' || !held.claimedUntil) return { kind: 'done' }
    return { kind: 'retry', delaySeconds: Math.ceil((held.claimedUntil.getTime() - now) / 1000) + 1 }
  }
  const record = (status: 'pending' | 'delivered' | 'failed' | 'skipped', answer: string) =>
    database
      .update(a)
      .set({
        status,
        lastError: status === 'delivered' ? null : answer,
        claimedUntil: null,
        deliveredAt: status === 'delivered' ? new Date() : null,
      })
      .where(eq(a.id, row.id))
  const attempt = await attemptFor(env, database, row)
  if (typeof attempt === 'string') {
    await record('skipped', attempt)
    return { kind: 'done' }
  }
  return settleAttempt(attempt, row.attempts, record)
}

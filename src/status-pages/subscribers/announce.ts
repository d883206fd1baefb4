import { and, eq, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { db } from '../../db/client'
import {
  statusPageAnnouncements,
  statusPageEmailSubscriptions,
  statusPageWebhooks,
} from '../../db/schema/status-page-subscribers'
import { statusPageIncidents, statusPageIncidentUpdates, statusPages } from '../../db/schema/status-pages'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'

const ANNOUNCE_JOB = 'status-page.announce'
const DELIVER_JOB = 'status-page.deliver'

/** Fans one incident update out to the page's subscribers (a row and a job each). */
export interface AnnounceMessage {
  type: typeof ANNOUNCE_JOB
  incidentId: string
  updateId: string
}

/** Sends one announcement row: a mail to a confirmed address, or a signed POST to a webhook. */
export interface AnnouncementDeliveryMessage {
  type: typeof DELIVER_JOB
  announcementId: string
}

// sendBatch takes at most 100 messages.
const SEND_BATCH = 100

/**
 * Tells a page's followers of an incident update: its confirmed addresses (while the page is public: they
 * subscribed there, and every mail links back to it) and its webhooks. Call it once the incident write has
 * committed, with the incident's id and the new update's; calling it again for the same update sends nothing
 * more. It only queues the fan-out, so the caller's time does not grow with the subscribers; a queue failure
 * is logged, never thrown (the incident stands either way).
 */
export async function announceIncidentUpdate(env: Env, incidentId: string, updateId: string): Promise<void> {
  const message: AnnounceMessage = { type: ANNOUNCE_JOB, incidentId, updateId }
  try {
    await env.JOBS.sendBatch([{ body: message }])
  } catch (error) {
    console.error(`incident update ${updateId} could not be queued for its subscribers`, error)
  }
}

/**
 * `status-page.announce`: one row per (update, subscriber) made in one batch, each insert a no-op where the
 * row exists, then a delivery job for every row of the update still pending. A redelivered or retried announce
 * therefore adds no row, and the rows it queues again are claimed before sending (deliver.ts), so nobody gets
 * the update twice.
 */
export async function announceJob(message: AnnounceMessage, env: Env): Promise<JobOutcome> {
  const database = db(env.DB)
  const [incident] = await database
    .select({ pageId: statusPageIncidents.statusPageId, public: statusPages.public })
    .from(statusPageIncidents)
    .innerJoin(statusPages, eq(statusPages.id, statusPageIncidents.statusPageId))
    .innerJoin(
      statusPageIncidentUpdates,
      and(
        eq(statusPageIncidentUpdates.id, message.updateId),
        eq(statusPageIncidentUpdates.incidentId, statusPageIncidents.id),
      ),
    )
    .where(eq(statusPageIncidents.id, message.incidentId))
    .limit(1)
  // Gone meanwhile (or never an update of this incident): there is nothing to tell.
  if (!incident) return { kind: 'done' }
  const now = Date.now()
  const rows = (channel: 'email' | 'webhook', subscriberId: SQLiteColumn) => ({
    id: sql<string>`lower(hex(randomblob(16)))`.as('id'),
    statusPageId: sql<string>`${incident.pageId}`.as('status_page_id'),
    incidentId: sql<string>`${message.incidentId}`.as('incident_id'),
    updateId: sql<string>`${message.updateId}`.as('update_id'),
    channel: sql<string>`${channel}`.as('channel'),
    subscriberId: sql<string>`${subscriberId}`.as('subscriber_id'),
    status: sql<string>`'pending'`.as('status'),
    attempts: sql<number>`0`.as('attempts'),
    lastError: sql<null>`null`.as('last_error'),
    claimedUntil: sql<null>`null`.as('claimed_until'),
    createdAt: sql<number>`${now}`.as('created_at'),
    deliveredAt: sql<null>`null`.as('delivered_at'),
  })
  const toAddresses = database
    .select(rows('email', statusPageEmailSubscriptions.id))
    .from(statusPageEmailSubscriptions)
    .where(
      and(
        eq(statusPageEmailSubscriptions.statusPageId, incident.pageId),
        eq(statusPageEmailSubscriptions.state, 'confirmed'),
      ),
    )
  const toWebhooks = database
    .select(rows('webhook', statusPageWebhooks.id))
    .from(statusPageWebhooks)
    .where(eq(statusPageWebhooks.statusPageId, incident.pageId))
  const pending = database
    .select({ id: statusPageAnnouncements.id })
    .from(statusPageAnnouncements)
    .where(
      and(
        eq(statusPageAnnouncements.updateId, message.updateId),
        eq(statusPageAnnouncements.status, 'pending'),
      ),
    )
  const toWebhooksInsert = database.insert(statusPageAnnouncements).select(toWebhooks).onConflictDoNothing()
  // A private page mails nobody: its subscribers signed up on it while it was public, and each mail links to it.
  const results = incident.public
    ? await database.batch([
        database.insert(statusPageAnnouncements).select(toAddresses).onConflictDoNothing(),
        toWebhooksInsert,
        pending,
      ])
    : await database.batch([toWebhooksInsert, pending])
  const ids = (results.at(-1) as { id: string }[]).map((row) => row.id)
  for (let i = 0; i < ids.length; i += SEND_BATCH) {
    const chunk = ids.slice(i, i + SEND_BATCH)
    await env.JOBS.sendBatch(
      chunk.map((announcementId) => ({
        body: { type: DELIVER_JOB, announcementId } as AnnouncementDeliveryMessage,
      })),
    )
  }
  return { kind: 'done' }
}

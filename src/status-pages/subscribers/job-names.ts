import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client'
import {
  statusPageAnnouncements,
  statusPageEmailSubscriptions,
} from '../../db/schema/status-page-subscribers'
import { statusPageIncidents, statusPages } from '../../db/schema/status-pages'
import type { AnnounceMessage, AnnouncementDeliveryMessage } from './announce'
import type { SubscriptionMailMessage } from './email-subscriptions'

type StatusPageJob = AnnounceMessage | AnnouncementDeliveryMessage | SubscriptionMailMessage

/** A status page job's target in words for the jobs list: never a subscriber's address or a webhook's URL. */
export async function statusPageJobName(db: Db, message: StatusPageJob): Promise<string | undefined> {
  if (message.type === 'status-page.subscription-mail') {
    const [row] = await db
      .select({ slug: statusPages.slug })
      .from(statusPageEmailSubscriptions)
      .innerJoin(statusPages, eq(statusPages.id, statusPageEmailSubscriptions.statusPageId))
      .where(eq(statusPageEmailSubscriptions.id, message.subscriptionId))
    return row && `subscription mail of status page ${row.slug}`
  }
  if (message.type === 'status-page.deliver') {
    const [row] = await db
      .select({ channel: statusPageAnnouncements.channel, title: statusPageIncidents.title })
      .from(statusPageAnnouncements)
      .innerJoin(statusPageIncidents, eq(statusPageIncidents.id, statusPageAnnouncements.incidentId))
      .where(eq(statusPageAnnouncements.id, message.announcementId))
    return row && `incident "${row.title}" to a subscriber's ${row.channel}`
  }
  const [row] = await db
    .select({ title: statusPageIncidents.title })
    .from(statusPageIncidents)
    .where(eq(statusPageIncidents.id, message.incidentId))
  return row && `incident "${row.title}" to its page's subscribers`
}

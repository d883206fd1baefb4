import type { z } from '@hono/zod-openapi'
import { and, desc, eq, lt, or } from 'drizzle-orm'
import type { Db } from '../db/client'
import { operationalDeliveries } from '../db/schema/notifications'
import { maskEmail, maskUrl } from './mask'
import type { OperationalNotification } from './message'
import type { DeliveriesPageSchema } from './schemas'

type DeliveryRecord = typeof operationalDeliveries.$inferSelect

function cursorOf(row: DeliveryRecord): string {
  return `${row.createdAt.getTime()}.${row.id}`
}

function after(cursor: string) {
  const dot = cursor.indexOf('.')
  const createdAt = new Date(Number(cursor.slice(0, dot)))
  const id = cursor.slice(dot + 1)
  return or(
    lt(operationalDeliveries.createdAt, createdAt),
    and(eq(operationalDeliveries.createdAt, createdAt), lt(operationalDeliveries.id, id)),
  )
}

/** One page of the delivery log, newest first, by keyset on (createdAt, id). */
export async function deliveriesPage(
  database: Db,
  limit: number,
  cursor: string | undefined,
): Promise<z.input<typeof DeliveriesPageSchema>> {
  const rows = await database
    .select()
    .from(operationalDeliveries)
    .where(cursor ? after(cursor) : undefined)
    .orderBy(desc(operationalDeliveries.createdAt), desc(operationalDeliveries.id))
    .limit(limit + 1)
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    deliveries: page.map((row) => ({
      id: row.id,
      kind: row.kind,
      event: row.event,
      key: row.eventKey,
      subject: (JSON.parse(row.payload) as OperationalNotification).subject,
      channel: row.channel,
      target: row.channel === 'email' ? maskEmail(row.target) : maskUrl(row.target),
      status: row.status,
      attempts: row.attempts,
      answer: row.answer,
      createdAt: row.createdAt.toISOString(),
      lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    })),
    nextCursor: rows.length > limit && last ? cursorOf(last) : null,
  }
}

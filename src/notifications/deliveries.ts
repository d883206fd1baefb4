import type { z } from '@hono/zod-openapi'
import { sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { operationalDeliveries } from '../db/schema/notifications'
import { maskUrl } from '../lib/mask-url'
import { afterCursor, type ListOrder, orderTerms, pageOf } from '../lib/paging'
import { maskEmail } from './mask'
import type { OperationalNotification } from './message'
import type { DeliveriesPageSchema } from './schemas'

const NEWEST_FIRST: ListOrder = {
  keys: [sql`${operationalDeliveries.createdAt}`, sql`${operationalDeliveries.id}`],
  direction: 'desc',
}

/** One page of the delivery log, newest first, by keyset on (createdAt, id); the cursor is the last delivery's id. */
export async function deliveriesPage(
  database: Db,
  limit: number,
  cursor: string | undefined,
): Promise<z.input<typeof DeliveriesPageSchema>> {
  const rows = await database
    .select()
    .from(operationalDeliveries)
    .where(
      await afterCursor(
        database,
        { table: operationalDeliveries, id: operationalDeliveries.id, order: NEWEST_FIRST },
        cursor,
      ),
    )
    .orderBy(...orderTerms(NEWEST_FIRST))
    .limit(limit + 1)
  const page = pageOf(rows, limit, (row) => row.id)
  return {
    deliveries: page.items.map((row) => ({
      id: row.id,
      kind: row.kind,
      event: row.event,
      key: row.eventKey,
      subject: (JSON.parse(row.payload) as OperationalNotification).subject,
      channel: row.channel,
      target:
        row.channel === 'email'
          ? maskEmail(row.target)
          : row.channel === 'channel'
            ? row.target
            : maskUrl(row.target),
      status: row.status,
      attempts: row.attempts,
      answer: row.answer,
      createdAt: row.createdAt.toISOString(),
      lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    })),
    nextCursor: page.nextCursor,
  }
}

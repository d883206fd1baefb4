import type { z } from '@hono/zod-openapi'
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { channelDeliveries } from '../db/schema/channels'
import { afterCursor, type ListOrder, orderTerms, pageOf } from '../lib/paging'
import type { ChannelDeliveriesPageSchema } from './channel-schemas'

const NEWEST_FIRST: ListOrder = {
  keys: [sql`${channelDeliveries.createdAt}`, sql`${channelDeliveries.id}`],
  direction: 'desc',
}

/** One page of a channel's delivery log, newest first, by keyset on (createdAt, id). */
export async function channelDeliveriesPage(
  database: Db,
  channelId: string,
  limit: number,
  cursor: string | undefined,
): Promise<z.input<typeof ChannelDeliveriesPageSchema>> {
  const scope = eq(channelDeliveries.channelId, channelId)
  const after = await afterCursor(
    database,
    { table: channelDeliveries, id: channelDeliveries.id, order: NEWEST_FIRST, scope },
    cursor,
  )
  const rows = await database
    .select()
    .from(channelDeliveries)
    .where(after ? sql`${scope} and ${after}` : scope)
    .orderBy(...orderTerms(NEWEST_FIRST))
    .limit(limit + 1)
  const page = pageOf(rows, limit, (row) => row.id)
  return {
    deliveries: page.items.map((row) => ({
      id: row.id,
      probeId: row.probeId,
      event: row.event,
      title: row.title,
      status: row.status,
      attempts: row.attempts,
      answer: row.answer,
      createdAt: row.createdAt.toISOString(),
      lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    })),
    nextCursor: page.nextCursor,
  }
}

import { eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { statusPages } from '../db/schema/status-pages'
import { notFound } from '../rpc/errors'

export type StatusPageRecord = typeof statusPages.$inferSelect

export async function getStatusPageRecord(db: Db, id: string): Promise<StatusPageRecord> {
  const [row] = await db.select().from(statusPages).where(eq(statusPages.id, id)).limit(1)
  if (!row) throw notFound(`status page ${id}`)
  return row
}

export function toStatusPage(row: StatusPageRecord, origin: string) {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    groups: row.groups,
    public: row.public,
    autoIncidents: row.autoIncidents,
    url: `${origin}/status/${row.slug}`,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

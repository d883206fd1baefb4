import { asc, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import {
  maintenanceWindowProbes,
  maintenanceWindowStatusPages,
  maintenanceWindows,
} from '../db/schema/maintenance'
import { idsOrAll } from '../lib/paging'
import { notFound } from '../rpc/errors'
import { currentOrNext, type MaintenanceSchedule } from './schedule'

export type MaintenanceRecord = typeof maintenanceWindows.$inferSelect

/** A window row with what it names, in the order given. */
export interface MaintenanceWithLinks extends MaintenanceRecord {
  probeIds: string[]
  statusPageIds: string[]
}

/** The one-off end the row keeps for reads that skip windows over; null for a weekly window. */
export function endsAtOf(schedule: MaintenanceSchedule): Date | null {
  return schedule.kind === 'once' ? new Date(schedule.endsAt) : null
}

/** The probes and status pages each window names, in one batch. */
export async function withLinks(db: Db, rows: MaintenanceRecord[]): Promise<MaintenanceWithLinks[]> {
  if (rows.length === 0) return []
  const ids = rows.map((row) => row.id)
  const [probeLinks, pageLinks] = await db.batch([
    db
      .select()
      .from(maintenanceWindowProbes)
      .where(idsOrAll(maintenanceWindowProbes.windowId, ids))
      .orderBy(asc(maintenanceWindowProbes.position)),
    db
      .select()
      .from(maintenanceWindowStatusPages)
      .where(idsOrAll(maintenanceWindowStatusPages.windowId, ids))
      .orderBy(asc(maintenanceWindowStatusPages.position)),
  ])
  return rows.map((row) => ({
    ...row,
    probeIds: probeLinks.filter((link) => link.windowId === row.id).map((link) => link.probeId),
    statusPageIds: pageLinks.filter((link) => link.windowId === row.id).map((link) => link.statusPageId),
  }))
}

export async function getMaintenance(db: Db, id: string): Promise<MaintenanceWithLinks> {
  const [row] = await db.select().from(maintenanceWindows).where(eq(maintenanceWindows.id, id)).limit(1)
  if (!row) throw notFound(`maintenance window ${id}`)
  const [linked] = await withLinks(db, [row])
  if (!linked) throw notFound(`maintenance window ${id}`)
  return linked
}

const iso = (ms: number) => new Date(ms).toISOString()

export function toMaintenanceWindow(row: MaintenanceWithLinks, now: number) {
  const opening = currentOrNext(row.schedule, now)
  return {
    id: row.id,
    title: row.title,
    schedule: row.schedule,
    probeIds: row.probeIds,
    statusPageIds: row.statusPageIds,
    active: opening !== null && opening.start <= now,
    opening: opening && { startsAt: iso(opening.start), endsAt: iso(opening.end) },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

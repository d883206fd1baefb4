import { and, desc, eq, gte, inArray, isNull, or } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { statusPageIncidents, statusPageIncidentUpdates } from '../../db/schema/status-pages'
import { INCIDENT_HISTORY_DAYS, type Incident } from './schema'

type IncidentRecord = typeof statusPageIncidents.$inferSelect
type UpdateRecord = typeof statusPageIncidentUpdates.$inferSelect

/** An incident row and its updates (any order) as the API shows it: updates newest first. */
export function toIncident(row: IncidentRecord, updates: UpdateRecord[]): Incident {
  return {
    id: row.id,
    statusPageId: row.statusPageId,
    title: row.title,
    impact: row.impact,
    state: row.state,
    probeIds: row.probeIds,
    automatic: row.automatic,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    updates: updates
      .filter((u) => u.incidentId === row.id)
      .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id.localeCompare(a.id))
      .map((u) => ({ id: u.id, state: u.state, message: u.message, at: u.at.toISOString() })),
  }
}

/**
 * The two reads behind what a page tells the public, for the caller's batch (pageIncidentsOf joins their rows):
 * its open incidents and those resolved within INCIDENT_HISTORY_DAYS, and their updates.
 */
export function pageIncidentQueries(db: Db, statusPageId: string, now: Date) {
  const since = new Date(now.getTime() - INCIDENT_HISTORY_DAYS * 86_400_000)
  const told = and(
    eq(statusPageIncidents.statusPageId, statusPageId),
    or(isNull(statusPageIncidents.resolvedAt), gte(statusPageIncidents.resolvedAt, since)),
  )
  return [
    db.select().from(statusPageIncidents).where(told).orderBy(desc(statusPageIncidents.createdAt)),
    db
      .select()
      .from(statusPageIncidentUpdates)
      .where(
        inArray(
          statusPageIncidentUpdates.incidentId,
          db.select({ id: statusPageIncidents.id }).from(statusPageIncidents).where(told),
        ),
      ),
  ] as const
}

/** The incidents of pageIncidentQueries' rows: the open ones, then the resolved, each group newest first. */
export function pageIncidentsOf(rows: IncidentRecord[], updates: UpdateRecord[]): Incident[] {
  const incidents = rows.map((r) => toIncident(r, updates))
  return [
    ...incidents.filter((i) => i.resolvedAt === null),
    ...incidents.filter((i) => i.resolvedAt !== null),
  ]
}

/**
 * What a page tells the public: its open incidents, then those resolved within INCIDENT_HISTORY_DAYS, each group
 * newest first, with every update. One batch whatever the page's history.
 */
export async function readPageIncidents(db: Db, statusPageId: string, now: Date): Promise<Incident[]> {
  const [rows, updates] = await db.batch(pageIncidentQueries(db, statusPageId, now))
  return pageIncidentsOf(rows, updates)
}

import { and, desc, eq, gte, isNull, or, sql } from 'drizzle-orm'
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
 * What a page tells the public: its open incidents, then those resolved within INCIDENT_HISTORY_DAYS, each group
 * newest first, with every update. Two reads whatever the page's history: the incidents over the page's index,
 * their updates by incident id.
 */
export async function readPageIncidents(db: Db, statusPageId: string, now: Date): Promise<Incident[]> {
  const since = new Date(now.getTime() - INCIDENT_HISTORY_DAYS * 86_400_000)
  const rows = await db
    .select()
    .from(statusPageIncidents)
    .where(
      and(
        eq(statusPageIncidents.statusPageId, statusPageId),
        or(isNull(statusPageIncidents.resolvedAt), gte(statusPageIncidents.resolvedAt, since)),
      ),
    )
    .orderBy(desc(statusPageIncidents.createdAt))
  if (rows.length === 0) return []
  const updates = await db
    .select()
    .from(statusPageIncidentUpdates)
    // The ids travel as one JSON parameter: 90 days of incidents stay within D1's bound-parameter limit.
    .where(
      sql`${statusPageIncidentUpdates.incidentId} in (select value from json_each(${JSON.stringify(rows.map((r) => r.id))}))`,
    )
  const incidents = rows.map((r) => toIncident(r, updates))
  return [
    ...incidents.filter((i) => i.resolvedAt === null),
    ...incidents.filter((i) => i.resolvedAt !== null),
  ]
}

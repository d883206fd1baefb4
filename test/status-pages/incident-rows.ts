import { db } from '../../src/db/client'
import { statusPageIncidents, statusPageIncidentUpdates } from '../../src/db/schema/status-pages'
import { workerEnv } from '../helpers/changelog'

// Incidents are written straight into D1 here: the incident procedures (issue #32 section 1) are built
// separately, and these tests need only the rows they leave behind.

export interface IncidentUpdateRow {
  id: string
  state: 'investigating' | 'identified' | 'monitoring' | 'resolved'
  message: string
  at: Date
}

export interface IncidentFixture {
  id: string
  updates: IncidentUpdateRow[]
}

/** Inserts an incident and its updates (oldest first); resolved when the last update is. */
export async function insertIncident(
  statusPageId: string,
  fields: {
    title: string
    impact?: 'none' | 'minor' | 'major' | 'critical'
    updates: { state: IncidentUpdateRow['state']; message: string; at: Date }[]
  },
): Promise<IncidentFixture> {
  const id = crypto.randomUUID()
  const updates = fields.updates.map((update) => ({ id: crypto.randomUUID(), incidentId: id, ...update }))
  const first = updates[0]
  const last = updates.at(-1)
  if (!first || !last) throw new Error('an incident has at least one update')
  await db(workerEnv.DB).batch([
    db(workerEnv.DB)
      .insert(statusPageIncidents)
      .values({
        id,
        statusPageId,
        title: fields.title,
        impact: fields.impact ?? 'major',
        state: last.state,
        probeIds: [],
        automatic: false,
        createdAt: first.at,
        updatedAt: last.at,
        resolvedAt: last.state === 'resolved' ? last.at : null,
      }),
    db(workerEnv.DB).insert(statusPageIncidentUpdates).values(updates),
  ])
  return { id, updates }
}

/** Adds one update to an incident (as incidents.update would), moving its state along. */
export async function insertUpdate(
  incidentId: string,
  update: { state: IncidentUpdateRow['state']; message: string; at: Date },
): Promise<IncidentUpdateRow> {
  const row = { id: crypto.randomUUID(), incidentId, ...update }
  await workerEnv.DB.batch([
    workerEnv.DB.prepare(
      'insert into status_page_incident_updates (id, incident_id, state, message, at) values (?, ?, ?, ?, ?)',
    ).bind(row.id, incidentId, row.state, row.message, row.at.getTime()),
    workerEnv.DB.prepare(
      'update status_page_incidents set state = ?, updated_at = ?, resolved_at = ? where id = ?',
    ).bind(row.state, row.at.getTime(), row.state === 'resolved' ? row.at.getTime() : null, incidentId),
  ])
  return { id: row.id, state: row.state, message: row.message, at: row.at }
}

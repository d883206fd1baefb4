import { and, eq, sql } from 'drizzle-orm'
import { failUnless, nextUpdatedAt } from '../../db/batch-guard'
import type { BatchItem, Db } from '../../db/client'
import { statusPageIncidents, statusPageIncidentUpdates } from '../../db/schema/status-pages'
import type { Env } from '../../env'
import { announceIncidentUpdate } from '../subscribers/announce'
import { toIncident } from './read'
import type { Incident } from './schema'

// The only two ways an incident's story changes, for people (statusPages.incidents.create|update) and for the
// page's automatic rule alike; each tells the page's subscribers of its new update once the write committed.

export type IncidentRecord = typeof statusPageIncidents.$inferSelect
export type IncidentUpdateRecord = typeof statusPageIncidentUpdates.$inferSelect

/**
 * Runs the writes as one D1 batch, with whatever the caller adds around them (guards, the audit entry); it
 * throws when a guard fails, and nothing is written.
 */
export type CommitIncident = (writes: BatchItem[], incident: IncidentRecord) => Promise<unknown>

export interface NewIncident {
  statusPageId: string
  title: string
  impact: IncidentRecord['impact']
  probeIds: string[]
  automatic: boolean
  /** The first update's message (`investigating`). */
  message: string
  at: Date
}

/** Opens an incident with its first update, `investigating`, both stamped `at`. */
export async function openIncident(
  db: Db,
  env: Env,
  commit: CommitIncident,
  fields: NewIncident,
): Promise<Incident> {
  const { message, at, ...rest } = fields
  const row: IncidentRecord = {
    id: crypto.randomUUID(),
    ...rest,
    state: 'investigating',
    createdAt: at,
    updatedAt: at,
    resolvedAt: null,
  }
  const update: IncidentUpdateRecord = {
    id: crypto.randomUUID(),
    incidentId: row.id,
    state: 'investigating',
    message,
    at,
  }
  await commit(
    [db.insert(statusPageIncidents).values(row), db.insert(statusPageIncidentUpdates).values(update)],
    row,
  )
  await announceIncidentUpdate(env, row.id, update.id)
  return toIncident(row, [update])
}

/**
 * Adds an update to the incident as read (`row` and its `updates`), stamped after every earlier one. `resolved`
 * sets resolvedAt, keeping an earlier one; any other state clears it (the incident is open again). Fails the
 * batch (guard `changed meanwhile`) when the incident changed since it was read.
 */
export async function postIncidentUpdate(
  db: Db,
  env: Env,
  commit: CommitIncident,
  read: { row: IncidentRecord; updates: IncidentUpdateRecord[] },
  change: { state: IncidentRecord['state']; message: string; now: Date },
): Promise<Incident> {
  const { row, updates } = read
  const at = nextUpdatedAt(row.updatedAt, change.now)
  const next: IncidentRecord = {
    ...row,
    state: change.state,
    updatedAt: at,
    resolvedAt: change.state === 'resolved' ? (row.resolvedAt ?? at) : null,
  }
  const update: IncidentUpdateRecord = {
    id: crypto.randomUUID(),
    incidentId: row.id,
    state: change.state,
    message: change.message,
    at,
  }
  await commit(
    [
      db
        .update(statusPageIncidents)
        .set({ state: next.state, updatedAt: next.updatedAt, resolvedAt: next.resolvedAt })
        .where(and(eq(statusPageIncidents.id, row.id), eq(statusPageIncidents.updatedAt, row.updatedAt))),
      failUnless(db, sql`changes() = 1`, 'changed meanwhile'),
      db.insert(statusPageIncidentUpdates).values(update),
    ],
    next,
  )
  await announceIncidentUpdate(env, row.id, update.id)
  return toIncident(next, [...updates, update])
}

/** An incident and its updates, or undefined when there is no such incident. */
export async function readIncident(
  db: Db,
  id: string,
): Promise<{ row: IncidentRecord; updates: IncidentUpdateRecord[] } | undefined> {
  const [rows, updates] = await db.batch([
    db.select().from(statusPageIncidents).where(eq(statusPageIncidents.id, id)).limit(1),
    db.select().from(statusPageIncidentUpdates).where(eq(statusPageIncidentUpdates.incidentId, id)),
  ])
  const [row] = rows
  return row && { row, updates }
}

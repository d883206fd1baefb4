import { and, eq, isNull, lte, sql } from 'drizzle-orm'
import { failUnless, isGuardFailure } from '../../db/batch-guard'
import type { BatchItem, Db } from '../../db/client'
import { type StatusPageGroup, statusPageIncidents, statusPages } from '../../db/schema/status-pages'
import type { Env } from '../../env'
import type { ProbeState } from '../../probes/monitor/api'
import { openIncident, postIncidentUpdate, readIncident } from './write'

/**
 * A displayed change of a probe the status pages' automatic incidents act on, as its monitor owes it: entering
 * `down` opens one, coming back (`up` or `degraded`, from down or flapping) resolves it. `covered` says a
 * maintenance window covered the probe at the change (no incident is opened then).
 */
export interface AutoIncidentChange {
  state: 'down' | 'up' | 'degraded'
  /** When the change happened (ms). */
  at: number
  covered: boolean
}

// Not from paused: every new or resumed probe's first good result is one, and costs no D1 read here.
const BACK_FROM: readonly ProbeState[] = ['down', 'flapping']

/** The change as the automatic incidents need it, or null for a change they ignore. */
export function autoIncidentChange(
  change: { from: ProbeState; to: ProbeState; at: number },
  covered: boolean,
): AutoIncidentChange | null {
  if (change.to === 'down') return { state: 'down', at: change.at, covered }
  if ((change.to === 'up' || change.to === 'degraded') && BACK_FROM.includes(change.from))
    return { state: change.to, at: change.at, covered }
  return null
}

function batch(db: Db, writes: BatchItem[]): Promise<unknown> {
  const [first, ...rest] = writes
  return first ? db.batch([first, ...rest]) : Promise.resolve([])
}

/** Whether an incident's probeIds hold the probe. */
const concerns = (probeId: string) =>
  sql`exists (select 1 from json_each(${statusPageIncidents.probeIds}) where value = ${probeId})`

/** The name the page shows the probe under (its first listing). */
function displayNameOn(groups: StatusPageGroup[], probeId: string): string | undefined {
  for (const group of groups)
    for (const probe of group.probes) if (probe.probeId === probeId) return probe.displayName
  return undefined
}

/**
 * Opens one automatic incident (impact major) on each page with autoIncidents listing the probe, unless that
 * page holds an open automatic incident for the probe already, or one opened for this very change (a change
 * applied again). Each page's is one batch whose guard says so at commit, so a change applied twice or by two
 * callers at once opens one.
 */
async function openOnPages(db: Db, env: Env, probeId: string, change: AutoIncidentChange): Promise<void> {
  const pages = await db
    .select({ id: statusPages.id, groups: statusPages.groups })
    .from(statusPages)
    .where(
      and(
        eq(statusPages.autoIncidents, true),
        sql`exists (select 1 from json_each(${statusPages.groups}) as g, json_each(g.value, '$.probes') as p
          where json_extract(p.value, '$.probeId') = ${probeId})`,
      ),
    )
  const at = new Date(change.at)
  for (const page of pages) {
    const name = displayNameOn(page.groups, probeId) ?? 'A service'
    const guard = failUnless(
      db,
      sql`not exists (select 1 from ${statusPageIncidents} where ${statusPageIncidents.statusPageId} = ${page.id}
        and ${statusPageIncidents.automatic} = 1 and ${concerns(probeId)}
        and (${statusPageIncidents.resolvedAt} is null or ${statusPageIncidents.createdAt} = ${change.at}))
        and exists (select 1 from ${statusPages} where ${statusPages.id} = ${page.id} and ${statusPages.autoIncidents} = 1)`,
      'automatic incident open',
    )
    try {
      await openIncident(db, env, (writes) => db.batch([guard, ...writes]), {
        statusPageId: page.id,
        title: `${name} is down`,
        impact: 'major',
        probeIds: [probeId],
        automatic: true,
        message: `${name} stopped answering its checks. This incident was opened automatically.`,
        at,
      })
    } catch (error) {
      if (!isGuardFailure(error, 'automatic incident open')) throw error
    }
  }
}

/**
 * Resolves the probe's open automatic incidents opened before the change, on any page (one whose rule was turned
 * off since, or that no longer lists the probe, too): a `resolved` update each. An incident an operator updated
 * meanwhile fails its batch and the change is applied again later; one resolved already is left alone.
 */
async function resolveOpen(db: Db, env: Env, probeId: string, change: AutoIncidentChange): Promise<void> {
  const open = await db
    .select({ id: statusPageIncidents.id, groups: statusPages.groups })
    .from(statusPageIncidents)
    .innerJoin(statusPages, eq(statusPages.id, statusPageIncidents.statusPageId))
    .where(
      and(
        eq(statusPageIncidents.automatic, true),
        isNull(statusPageIncidents.resolvedAt),
        lte(statusPageIncidents.createdAt, new Date(change.at)),
        concerns(probeId),
      ),
    )
  for (const incident of open) {
    const read = await readIncident(db, incident.id)
    if (!read || read.row.resolvedAt !== null) continue
    const name = displayNameOn(incident.groups, probeId) ?? 'The service'
    await postIncidentUpdate(db, env, (writes) => batch(db, writes), read, {
      state: 'resolved',
      message:
        change.state === 'up'
          ? `${name} is answering its checks again. Resolved automatically.`
          : `${name} is answering its checks again, slowly (degraded). Resolved automatically.`,
      now: new Date(change.at),
    })
  }
}

/**
 * Applies one owed change to the status pages' automatic incidents. Idempotent: applying a change again (a retry
 * after a lost answer) opens and resolves nothing twice. No incident is opened while maintenance covers the probe.
 */
export async function applyAutoIncidentChange(
  db: Db,
  env: Env,
  probeId: string,
  change: AutoIncidentChange,
): Promise<void> {
  if (change.state === 'down') {
    if (!change.covered) await openOnPages(db, env, probeId, change)
  } else await resolveOpen(db, env, probeId, change)
}

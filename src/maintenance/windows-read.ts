import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import {
  maintenanceWindowProbes,
  maintenanceWindowStatusPages,
  maintenanceWindows,
} from '../db/schema/maintenance'
import { statusPages } from '../db/schema/status-pages'
import type { WindowRule } from './coverage'

const RULE = {
  id: maintenanceWindows.id,
  title: maintenanceWindows.title,
  schedule: maintenanceWindows.schedule,
}

/** Weekly windows, and one-off windows that end after `since`. */
const notOver = (since: number) =>
  or(isNull(maintenanceWindows.endsAt), gt(maintenanceWindows.endsAt, new Date(since)))

/** Whether a status page's groups list the probe. */
const pageLists = (probeId: string) =>
  sql`exists (select 1 from json_each(${statusPages.groups}) as g, json_each(g.value, '$.probes') as p
    where json_extract(p.value, '$.probeId') = ${probeId})`

/** The windows that may cover a probe: those naming it, and those naming a status page that lists it. */
export function windowsCoveringProbe(db: Db, probeId: string, since: number): Promise<WindowRule[]> {
  const naming = db
    .select({ id: maintenanceWindowProbes.windowId })
    .from(maintenanceWindowProbes)
    .where(eq(maintenanceWindowProbes.probeId, probeId))
  const viaPages = db
    .select({ id: maintenanceWindowStatusPages.windowId })
    .from(maintenanceWindowStatusPages)
    .innerJoin(statusPages, eq(statusPages.id, maintenanceWindowStatusPages.statusPageId))
    .where(pageLists(probeId))
  return db
    .select(RULE)
    .from(maintenanceWindows)
    .where(
      and(
        or(inArray(maintenanceWindows.id, naming), inArray(maintenanceWindows.id, viaPages)),
        notOver(since),
      ),
    )
}

/** A row of windowsCoveringProbesQuery: a window that may cover the probe named. */
export interface ProbeWindowRow {
  probe_id: string
  id: string
  title: string
  schedule: string
}

/**
 * windowsCoveringProbe for several probes in one statement (a pack of scheduled checks); windowsByProbe groups
 * its rows.
 */
export function windowsCoveringProbesQuery(db: Db, probeIds: readonly string[], since: number) {
  const ids = JSON.stringify(probeIds)
  return db.all<ProbeWindowRow>(sql`
    select wp.probe_id, w.id, w.title, w.schedule from maintenance_windows w
      join maintenance_window_probes wp on wp.window_id = w.id
      where wp.probe_id in (select value from json_each(${ids})) and (w.ends_at is null or w.ends_at > ${since})
    union
    select json_extract(p.value, '$.probeId'), w.id, w.title, w.schedule from maintenance_windows w
      join maintenance_window_status_pages ws on ws.window_id = w.id
      join status_pages s on s.id = ws.status_page_id, json_each(s.groups) g, json_each(g.value, '$.probes') p
      where json_extract(p.value, '$.probeId') in (select value from json_each(${ids}))
        and (w.ends_at is null or w.ends_at > ${since})`)
}

/** windowsCoveringProbesQuery's rows by probe id. */
export function windowsByProbe(rows: readonly ProbeWindowRow[]): Map<string, WindowRule[]> {
  const byProbe = new Map<string, WindowRule[]>()
  for (const row of rows) {
    const rule = { id: row.id, title: row.title, schedule: JSON.parse(row.schedule) }
    byProbe.set(row.probe_id, [...(byProbe.get(row.probe_id) ?? []), rule])
  }
  return byProbe
}

/** A window as a status page sees it: it covers every probe the page lists, or only those it names. */
export interface PageWindow extends WindowRule {
  covers: 'all' | Set<string>
}

/** The two reads behind a status page's windows, to run in the caller's batch; pageWindows joins their rows. */
export function statusPageWindowQueries(db: Db, pageId: string, probeIds: readonly string[], since: number) {
  return [
    db
      .select(RULE)
      .from(maintenanceWindows)
      .innerJoin(
        maintenanceWindowStatusPages,
        eq(maintenanceWindowStatusPages.windowId, maintenanceWindows.id),
      )
      .where(and(eq(maintenanceWindowStatusPages.statusPageId, pageId), notOver(since))),
    db
      .select({ ...RULE, probeId: maintenanceWindowProbes.probeId })
      .from(maintenanceWindows)
      .innerJoin(maintenanceWindowProbes, eq(maintenanceWindowProbes.windowId, maintenanceWindows.id))
      .where(
        and(
          inArray(maintenanceWindowProbes.probeId, probeIds.length > 0 ? [...probeIds] : ['']),
          notOver(since),
        ),
      ),
  ] as const
}

/**
 * The windows that may cover a status page's probes, from statusPageWindowQueries' rows: those naming the page
 * cover all its probes, those naming a listed probe cover that probe.
 */
export function pageWindows(
  forPage: readonly WindowRule[],
  forProbes: readonly (WindowRule & { probeId: string })[],
): PageWindow[] {
  const windows = new Map<string, PageWindow>()
  for (const rule of forPage) windows.set(rule.id, { ...rule, covers: 'all' })
  for (const { probeId, ...rule } of forProbes) {
    const known = windows.get(rule.id) ?? { ...rule, covers: new Set<string>() }
    if (known.covers !== 'all') known.covers.add(probeId)
    windows.set(rule.id, known)
  }
  return [...windows.values()]
}

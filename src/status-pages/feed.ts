import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../db/client'
import { maintenanceWindows } from '../db/schema/maintenance'
import { statusPages } from '../db/schema/status-pages'
import type { FeedDocument, FeedEntry } from '../lib/feed-xml'
import { tagUri } from '../lib/feed-xml'
import { currentOrNext } from '../maintenance/schedule'
import { type PageWindow, pageWindows, statusPageWindowQueries } from '../maintenance/windows-read'
import { readPageIncidents } from './incidents/read'
import type { Incident } from './incidents/schema'

type PageRecord = typeof statusPages.$inferSelect

const STATE_WORDS = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
} as const

const minute = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** Each update of each incident is one entry: a reader learns of every step, not only the newest. */
function incidentEntries(page: PageRecord, origin: string, incidents: Incident[]): FeedEntry[] {
  const link = `${origin}/status/${page.slug}`
  return incidents.flatMap((incident) =>
    incident.updates.map((update) => ({
      id: tagUri(
        origin,
        page.createdAt,
        `status-page/${page.id}/incident/${incident.id}/update/${update.id}`,
      ),
      title: `${incident.title}: ${STATE_WORDS[update.state]}`,
      updated: new Date(update.at),
      link: `${link}#incident-${incident.id}`,
      text: `${update.message}\n${STATE_WORDS[update.state]} at ${minute(new Date(update.at))}; impact ${incident.impact}.`,
    })),
  )
}

/**
 * A window's current or next opening is one entry, named by the window and the opening's start, so each weekly
 * opening is news of its own. Windows with no opening ahead are left out.
 */
function maintenanceEntries(
  page: PageRecord,
  origin: string,
  windows: PageWindow[],
  updatedAt: Map<string, Date>,
  now: number,
): FeedEntry[] {
  const names = new Map(page.groups.flatMap((group) => group.probes.map((p) => [p.probeId, p.displayName])))
  return windows.flatMap((window) => {
    const opening = currentOrNext(window.schedule, now)
    if (!opening) return []
    const covers =
      window.covers === 'all'
        ? 'every service on this page'
        : [...window.covers].map((id) => names.get(id) ?? id).join(', ')
    return [
      {
        id: tagUri(
          origin,
          page.createdAt,
          `status-page/${page.id}/maintenance/${window.id}/${opening.start}`,
        ),
        title: `Maintenance: ${window.title}`,
        updated: updatedAt.get(window.id) ?? page.updatedAt,
        link: `${origin}/status/${page.slug}`,
        text: `Scheduled maintenance from ${minute(new Date(opening.start))} to ${minute(new Date(opening.end))}.\nCovers ${covers}.`,
      },
    ]
  })
}

/**
 * The feed of a public page: every update of its open incidents and of those resolved in the history window,
 * and its maintenance windows' current or next openings, newest first; null when there is no such public page.
 * `self` is the feed's own URL.
 */
export async function statusFeed(
  db: Db,
  slug: string,
  origin: string,
  self: string,
  now: number,
): Promise<FeedDocument | null> {
  const [page] = await db
    .select()
    .from(statusPages)
    .where(and(eq(statusPages.slug, slug), eq(statusPages.public, true)))
    .limit(1)
  if (!page) return null
  const listed = [...new Set(page.groups.flatMap((group) => group.probes.map((probe) => probe.probeId)))]
  const [incidents, [forPage, forProbes]] = await Promise.all([
    readPageIncidents(db, page.id, new Date(now)),
    db.batch(statusPageWindowQueries(db, page.id, listed, now)),
  ])
  const windows = pageWindows(forPage, forProbes)
  const updatedAt = new Map(
    windows.length === 0
      ? []
      : (
          await db
            .select({ id: maintenanceWindows.id, updatedAt: maintenanceWindows.updatedAt })
            .from(maintenanceWindows)
            .where(
              inArray(
                maintenanceWindows.id,
                windows.map((w) => w.id),
              ),
            )
        ).map((row) => [row.id, row.updatedAt]),
  )
  const entries = [
    ...incidentEntries(page, origin, incidents),
    ...maintenanceEntries(page, origin, windows, updatedAt, now),
  ].sort((a, b) => b.updated.getTime() - a.updated.getTime() || (a.id < b.id ? -1 : 1))
  const newest = Math.max(page.updatedAt.getTime(), ...entries.map((entry) => entry.updated.getTime()))
  return {
    id: tagUri(origin, page.createdAt, `status-page/${page.id}`),
    title: page.title,
    subtitle: page.description ?? `Incidents and maintenance of ${page.title}`,
    link: `${origin}/status/${page.slug}`,
    linkType: 'text/html',
    self,
    updated: new Date(newest),
    author: page.title,
    entries,
  }
}

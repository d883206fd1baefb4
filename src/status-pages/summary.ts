import { and, desc, eq, gte, inArray, isNull } from 'drizzle-orm'
import type { Db } from '../db/client'
import { type PROBE_STATES, probeResults, probeRollups, probes } from '../db/schema/probes'
import { statusPages } from '../db/schema/status-pages'
import { coverageAt } from '../maintenance/coverage'
import { occurrenceAt } from '../maintenance/schedule'
import { type PageWindow, pageWindows, statusPageWindowQueries } from '../maintenance/windows-read'
import { type PublicIncident, publicIncidents } from './incidents/public'
import { pageIncidentQueries, pageIncidentsOf } from './incidents/read'

export type ProbeState = (typeof PROBE_STATES)[number]
/** A page's overall state: the probes' own vocabulary, plus `maintenance` (never a probe's state). */
export type PageState = ProbeState | 'maintenance'

/** A maintenance window covering a probe now: its title and when cover ends. */
export interface ActiveMaintenance {
  title: string
  endsAt: string
}

const DAY_MS = 86_400_000
export const BAR_DAYS = 90
export const EVENT_COUNT = 20

/** One day's bar: the share of checks that answered (up or degraded), in basis points; null for a day without checks. */
export interface DailyBar {
  date: string
  upRatio: number | null
}

/** What a probe that has never had a state of its own waits for: its first check, or a heartbeat's first ping. */
export type Awaiting = 'check' | 'ping'

export interface PublicProbe {
  name: string
  state: ProbeState
  /** Set while an enabled probe has never been checked (its state is still the `paused` it was created in). */
  awaiting: Awaiting | null
  since: string | null
  /** The 90 days' share of answered checks in basis points; null when none ran. */
  uptime: number | null
  bars: DailyBar[]
  /** The window covering the probe now; null when none does. */
  maintenance: ActiveMaintenance | null
}

export interface PublicStatus {
  title: string
  description: string | null
  state: PageState
  generatedAt: string
  /** The windows covering a listed probe now, soonest end first. */
  activeMaintenance: ActiveMaintenance[]
  groups: { name: string; probes: PublicProbe[] }[]
  events: { at: string; name: string; state: ProbeState; previousState: ProbeState | null }[]
  /** Open incidents, then those resolved in the last 90 days; each group newest first. */
  incidents: PublicIncident[]
}

/**
 * The page's overall state: down when a listed probe no window covers is down, else degraded when one is
 * degraded or flapping, else maintenance when a window covers any listed probe, else up when any is up; paused
 * when no listed probe runs.
 */
export function overallState(probes: readonly Pick<PublicProbe, 'state' | 'maintenance'>[]): PageState {
  const outside = probes.filter((probe) => probe.maintenance === null).map((probe) => probe.state)
  if (outside.includes('down')) return 'down'
  if (outside.includes('degraded') || outside.includes('flapping')) return 'degraded'
  if (outside.length < probes.length) return 'maintenance'
  if (outside.includes('up')) return 'up'
  return 'paused'
}

/** Whether the page is paused only in that its probes have not been checked yet (the headline and badge say so). */
export function isWaiting(status: PublicStatus): boolean {
  return (
    status.state === 'paused' &&
    status.groups.some((group) => group.probes.some((probe) => probe.awaiting !== null))
  )
}

// A probe is created paused and leaves it at its first check; only a change sets lastChangedAt, and stopping
// a probe is one, so paused, enabled and never changed is a probe no check has reached yet.
function awaitingOf(probe: {
  state: ProbeState
  enabled: boolean
  type: string
  lastChangedAt: Date | null
}): Awaiting | null {
  if (probe.state !== 'paused' || !probe.enabled || probe.lastChangedAt !== null) return null
  return probe.type === 'heartbeat' ? 'ping' : 'check'
}

/** The windows open now over the page's probes (public fields only), and each probe's cover. */
function maintenanceNow(windows: PageWindow[], now: number) {
  const open = windows.flatMap((window) => {
    const opening = occurrenceAt(window.schedule, now)
    return opening ? [{ window, end: opening.end }] : []
  })
  const coverOf = (probeId: string): ActiveMaintenance | null => {
    const rules = open
      .filter(({ window }) => window.covers === 'all' || window.covers.has(probeId))
      .map(({ window }) => window)
    const cover = coverageAt(rules, now)
    return cover && { title: cover.title, endsAt: new Date(cover.until).toISOString() }
  }
  return { open, coverOf }
}

const ratio = (answered: number, checks: number) =>
  checks === 0 ? null : Math.floor((answered * 10_000) / checks)

/**
 * What the public sees of a public page, or null when there is no such public page. Only display names,
 * states, times and counts leave here: never a probe's id, name, target or config.
 */
export async function publicStatus(db: Db, slug: string, now: number): Promise<PublicStatus | null> {
  const [page] = await db
    .select()
    .from(statusPages)
    .where(and(eq(statusPages.slug, slug), eq(statusPages.public, true)))
    .limit(1)
  if (!page) return null
  const listed = [...new Set(page.groups.flatMap((group) => group.probes.map((probe) => probe.probeId)))]
  const today = Math.floor(now / DAY_MS) * DAY_MS
  const firstDay = today - (BAR_DAYS - 1) * DAY_MS
  // One batch even for a page listing no probe: its incidents are read with the rest (an empty list reads nothing).
  const [incidentRows, updateRows, states, rollups, events, forPage, forProbes] = await db.batch([
    ...pageIncidentQueries(db, page.id, new Date(now)),
    db
      .select({
        id: probes.id,
        state: probes.state,
        enabled: probes.enabled,
        type: probes.type,
        lastChangedAt: probes.lastChangedAt,
      })
      .from(probes)
      .where(and(inArray(probes.id, listed), isNull(probes.archivedAt))),
    db
      .select()
      .from(probeRollups)
      .where(
        and(
          inArray(probeRollups.probeId, listed),
          eq(probeRollups.granularity, 'daily'),
          gte(probeRollups.bucketStart, new Date(firstDay)),
        ),
      ),
    db
      .select({
        probeId: probeResults.probeId,
        at: probeResults.at,
        state: probeResults.state,
        previousState: probeResults.previousState,
      })
      .from(probeResults)
      .where(and(inArray(probeResults.probeId, listed), eq(probeResults.kind, 'event')))
      .orderBy(desc(probeResults.at), desc(probeResults.id))
      .limit(EVENT_COUNT),
    ...statusPageWindowQueries(db, page.id, listed, now),
  ])
  const windows = pageWindows(forPage, forProbes)
  const { open, coverOf } = maintenanceNow(windows, now)
  const live = new Map(states.map((row) => [row.id, row]))
  const daily = new Map<string, { up: number; down: number; degraded: number }>()
  for (const row of rollups) daily.set(`${row.probeId} ${row.bucketStart.getTime()}`, row)
  const displayName = new Map<string, string>()
  const groups = page.groups.map((group) => ({
    name: group.name,
    probes: group.probes.flatMap((listedProbe): PublicProbe[] => {
      const probe = live.get(listedProbe.probeId)
      if (!probe) return []
      if (!displayName.has(probe.id)) displayName.set(probe.id, listedProbe.displayName)
      let answered = 0
      let checks = 0
      const bars = Array.from({ length: BAR_DAYS }, (_, i) => {
        const day = firstDay + i * DAY_MS
        const counts = daily.get(`${probe.id} ${day}`)
        const dayChecks = counts ? counts.up + counts.down + counts.degraded : 0
        const dayAnswered = counts ? counts.up + counts.degraded : 0
        answered += dayAnswered
        checks += dayChecks
        return { date: new Date(day).toISOString().slice(0, 10), upRatio: ratio(dayAnswered, dayChecks) }
      })
      return [
        {
          name: listedProbe.displayName,
          state: probe.state,
          awaiting: awaitingOf(probe),
          since: probe.lastChangedAt?.toISOString() ?? null,
          uptime: ratio(answered, checks),
          bars,
          maintenance: coverOf(probe.id),
        },
      ]
    }),
  }))
  return {
    title: page.title,
    description: page.description,
    state: overallState(groups.flatMap((group) => group.probes)),
    generatedAt: new Date(now).toISOString(),
    activeMaintenance: open
      .filter(({ window }) => window.covers === 'all' || [...window.covers].some((id) => live.has(id)))
      .sort((a, b) => a.end - b.end)
      .map(({ window, end }) => ({ title: window.title, endsAt: new Date(end).toISOString() })),
    groups,
    events: events.flatMap((event) => {
      const name = displayName.get(event.probeId)
      if (name === undefined) return []
      return [{ at: event.at.toISOString(), name, state: event.state, previousState: event.previousState }]
    }),
    incidents: publicIncidents(pageIncidentsOf(incidentRows, updateRows), displayName),
  }
}

import { and, desc, eq, gte, inArray, isNull } from 'drizzle-orm'
import type { Db } from '../db/client'
import { type PROBE_STATES, probeResults, probeRollups, probes } from '../db/schema/probes'
import { statusPages } from '../db/schema/status-pages'

export type ProbeState = (typeof PROBE_STATES)[number]

const DAY_MS = 86_400_000
export const BAR_DAYS = 90
export const EVENT_COUNT = 20

/** One day's bar: the share of checks that answered (up or degraded), in basis points; null for a day without checks. */
export interface DailyBar {
  date: string
  upRatio: number | null
}

export interface PublicProbe {
  name: string
  state: ProbeState
  since: string | null
  /** The 90 days' share of answered checks in basis points; null when none ran. */
  uptime: number | null
  bars: DailyBar[]
}

export interface PublicStatus {
  title: string
  description: string | null
  state: ProbeState
  generatedAt: string
  groups: { name: string; probes: PublicProbe[] }[]
  events: { at: string; name: string; state: ProbeState; previousState: ProbeState | null }[]
}

/**
 * The page's overall state, in the probes' own vocabulary: down when any listed probe is down, else degraded
 * when any is degraded or flapping, else up when any is up; paused when no listed probe runs.
 */
export function overallState(states: readonly ProbeState[]): ProbeState {
  if (states.includes('down')) return 'down'
  if (states.includes('degraded') || states.includes('flapping')) return 'degraded'
  if (states.includes('up')) return 'up'
  return 'paused'
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
  const [states, rollups, events] =
    listed.length === 0
      ? [[], [], []]
      : await db.batch([
          db
            .select({ id: probes.id, state: probes.state, lastChangedAt: probes.lastChangedAt })
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
        ])
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
          since: probe.lastChangedAt?.toISOString() ?? null,
          uptime: ratio(answered, checks),
          bars,
        },
      ]
    }),
  }))
  return {
    title: page.title,
    description: page.description,
    state: overallState(groups.flatMap((group) => group.probes.map((probe) => probe.state))),
    generatedAt: new Date(now).toISOString(),
    groups,
    events: events.flatMap((event) => {
      const name = displayName.get(event.probeId)
      if (name === undefined) return []
      return [{ at: event.at.toISOString(), name, state: event.state, previousState: event.previousState }]
    }),
  }
}

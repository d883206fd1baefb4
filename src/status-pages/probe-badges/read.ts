import { and, eq, isNull } from 'drizzle-orm'
import type { D1Handle, Db } from '../../db/client'
import { domains } from '../../db/schema/domains'
import { probes } from '../../db/schema/probes'
import { statusPages } from '../../db/schema/status-pages'
import { coverageAt } from '../../maintenance/coverage'
import { pageWindows, statusPageWindowQueries } from '../../maintenance/windows-read'
import { readMeanLatency } from '../../probes/availability/read'
import { readWindow, windowFigures } from '../../probes/availability/window'
import { daysLeftIn } from '../../probes/checks/expiry'
import type { ProbeRecord } from '../../probes/rows'
import { STATE_COLOURS } from '../badge'
import {
  type Badge,
  type BadgeKind,
  certificateBadge,
  isUptime,
  responseBadge,
  UPTIME_DAYS,
  uptimeBadge,
} from './kinds'

const DAY_MS = 86_400_000

/** A probe as a public page lists it: the page, the display name it gives the probe, and the probe's row. */
interface Listed {
  pageId: string
  displayName: string
  probe: ProbeRecord
}

/** The probe, when a public page of that slug lists it and it is not archived; null otherwise. */
async function listedProbe(db: Db, slug: string, probeId: string): Promise<Listed | null> {
  const [pages, rows] = await db.batch([
    db
      .select({ id: statusPages.id, groups: statusPages.groups })
      .from(statusPages)
      .where(and(eq(statusPages.slug, slug), eq(statusPages.public, true))),
    db
      .select()
      .from(probes)
      .where(and(eq(probes.id, probeId), isNull(probes.archivedAt))),
  ])
  const [page] = pages
  const [probe] = rows
  const listing = page?.groups.flatMap((group) => group.probes).find((entry) => entry.probeId === probeId)
  if (!page || !probe || !listing) return null
  return { pageId: page.id, displayName: listing.displayName, probe }
}

/** The state the page shows the probe in: maintenance while a window covers it, waiting before its first check. */
async function statusBadge(db: Db, listed: Listed, now: number): Promise<Badge> {
  const { probe } = listed
  const [forPage, forProbes] = await db.batch(statusPageWindowQueries(db, listed.pageId, [probe.id], now))
  const rules = pageWindows(forPage, forProbes).filter(
    (window) => window.covers === 'all' || window.covers.has(probe.id),
  )
  const waiting = probe.state === 'paused' && probe.enabled && probe.lastChangedAt === null
  const state = coverageAt(rules, now) ? 'maintenance' : waiting ? 'waiting' : probe.state
  return { label: listed.displayName, message: state, color: STATE_COLOURS[state] }
}

/**
 * Days left on the certificate: a domain's, as its node agents report it, for a probe of a domain; a cert probe's
 * last result otherwise (less the whole days since); undefined for any other probe, which has no such badge.
 */
async function certificateDays(db: Db, probe: ProbeRecord, now: number): Promise<number | null | undefined> {
  if (probe.targetKind === 'domain' && probe.targetId !== null) {
    const [domain] = await db
      .select({ expiresAt: domains.certExpiresAt })
      .from(domains)
      .where(eq(domains.id, probe.targetId))
    const expiresAt = domain?.expiresAt?.getTime()
    return expiresAt === undefined ? null : Math.floor((expiresAt - now) / DAY_MS)
  }
  if (probe.type !== 'cert') return undefined
  const result = probe.lastResult
  const days = result ? daysLeftIn(result.detail) : null
  if (result === null || days === null) return null
  return days < 0 ? days : days - Math.floor((now - Date.parse(result.at)) / DAY_MS)
}

/** The badge of a probe listed on a public page; null when there is no such badge (answered 404). */
export async function probeBadge(
  d1: D1Handle,
  db: Db,
  slug: string,
  probeId: string,
  kind: BadgeKind,
  now: number,
): Promise<Badge | null> {
  const listed = await listedProbe(db, slug, probeId)
  if (!listed) return null
  const name = listed.displayName
  if (kind === 'status') return statusBadge(db, listed, now)
  if (isUptime(kind)) {
    const window = { from: now - UPTIME_DAYS[kind] * DAY_MS, to: now }
    const figures = windowFigures(await readWindow(d1, probeId, window, now))
    return uptimeBadge(`${name} uptime ${kind.slice('uptime-'.length)}`, figures.uptimeRatio)
  }
  if (kind === 'response')
    return responseBadge(`${name} response`, await readMeanLatency(d1, probeId, now - DAY_MS, now))
  const days = await certificateDays(db, listed.probe, now)
  return days === undefined ? null : certificateBadge(`${name} certificate`, days)
}

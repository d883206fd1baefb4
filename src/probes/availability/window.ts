import type { D1Handle } from '../../db/client'
import { AppError, notFound } from '../../rpc/errors'
import { HOURLY_RETENTION_MS } from '../history/prune-cron'
import { type Availability, buildHistory, figuresOf, type History } from './figures'
import { maintenanceSpans } from './maintenance'
import { readAvailabilityInputs } from './read'
import { toSeconds } from './spans'

const DAY_SECONDS = 86_400

const outOfRange = (message: string) =>
  new AppError('out_of_range', `from: ${message}`, { issues: [{ path: 'from', message }] })

/**
 * A probe's history over [from, to) (ms, to the second), counted up to `now`: 404 for an unknown probe, 422 naming
 * `from` when it is older than the hourly rollups' retention (partial days' checks come from them) or not before
 * now.
 */
export async function readWindow(
  d1: D1Handle,
  probeId: string,
  window: { from: number; to: number },
  now: number,
): Promise<History> {
  const from = toSeconds(window.from) * 1000
  const end = Math.min(toSeconds(window.to), toSeconds(now)) * 1000
  if (window.from < now - HOURLY_RETENTION_MS)
    throw outOfRange(`must be within the last ${HOURLY_RETENTION_MS / 3_600_000} hours (the history kept)`)
  if (from >= end) throw outOfRange('must be before now')
  const inputs = await readAvailabilityInputs(d1, probeId, from, end)
  if (!inputs) throw notFound(`probe ${probeId}`)
  const maintenance = maintenanceSpans(inputs.windows, from, end)
  return buildHistory(
    { start: from / 1000, end: end / 1000 },
    inputs.before,
    inputs.changes,
    maintenance,
    inputs.buckets,
  )
}

/** The window's own figures. */
export const windowFigures = (history: History): Availability =>
  figuresOf(history, history.window.start, history.window.end)

export interface DayFigures extends Availability {
  /** The UTC day, YYYY-MM-DD. */
  date: string
  /** The part of the day inside the window (seconds). */
  from: number
  to: number
}

/** One row per UTC day the window touches, each over the day's part of the window. */
export function dayFigures(history: History): DayFigures[] {
  const rows: DayFigures[] = []
  const { start, end } = history.window
  for (let day = Math.floor(start / DAY_SECONDS) * DAY_SECONDS; day < end; day += DAY_SECONDS) {
    const from = Math.max(day, start)
    const to = Math.min(day + DAY_SECONDS, end)
    const date = new Date(day * 1000).toISOString().slice(0, 10)
    rows.push({ date, from, to, ...figuresOf(history, from, to) })
  }
  return rows
}

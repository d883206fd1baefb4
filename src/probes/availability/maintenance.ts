import { currentOrNext, type MaintenanceSchedule } from '../../maintenance/schedule'
import { type Span, toSeconds, union } from './spans'

/** A window that may cover the probe, and when it was declared (ms). */
export interface DeclaredWindow {
  schedule: MaintenanceSchedule
  createdAt: number
}

/**
 * The time the windows cover inside [from, to) (ms), as disjoint spans in seconds. A window counts only from
 * when it was created: time declared as maintenance after the fact excuses no downtime that already happened.
 */
export function maintenanceSpans(windows: readonly DeclaredWindow[], from: number, to: number): Span[] {
  const spans: Span[] = []
  for (const window of windows) {
    let at = Math.max(from, window.createdAt)
    while (at < to) {
      const opening = currentOrNext(window.schedule, at)
      if (!opening || opening.start >= to || opening.end <= at) break
      spans.push({ start: toSeconds(Math.max(opening.start, at)), end: toSeconds(Math.min(opening.end, to)) })
      at = opening.end
    }
  }
  return union(spans)
}

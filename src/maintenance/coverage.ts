import { type MaintenanceSchedule, occurrenceAt } from './schedule'

/** What a probe's monitor, or a status page, needs of a window. */
export interface WindowRule {
  id: string
  title: string
  schedule: MaintenanceSchedule
}

/** Windows covering a moment: the title of the one that lasts longest, and when cover ends. */
export interface Coverage {
  title: string
  /** When no window covers any more (ms): adjoining and overlapping openings count as one stretch. */
  until: number
}

// Openings chained end to start; past this many the stretch is cut (the monitor looks again at its end).
const MAX_CHAIN = 32

function longestAt(windows: readonly WindowRule[], at: number): { title: string; end: number } | null {
  let best: { title: string; end: number } | null = null
  for (const window of windows) {
    const open = occurrenceAt(window.schedule, at)
    if (open && (best === null || open.end > best.end)) best = { title: window.title, end: open.end }
  }
  return best
}

/** Whether any of the windows covers `at`, and until when; null when none does. */
export function coverageAt(windows: readonly WindowRule[], at: number): Coverage | null {
  const first = longestAt(windows, at)
  if (!first) return null
  let until = first.end
  for (let step = 0; step < MAX_CHAIN; step++) {
    const next = longestAt(windows, until)
    if (!next || next.end <= until) break
    until = next.end
  }
  return { title: first.title, until }
}

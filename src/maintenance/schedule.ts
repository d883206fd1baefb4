import { Cron } from 'croner'

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const
export type Weekday = (typeof WEEKDAYS)[number]

/**
 * When a window is open: once, from one instant to another; or weekly, on the given days at a local time in an
 * IANA zone for a number of minutes (elapsed time, so a window across a daylight-saving change lasts exactly as
 * long, ending an hour earlier or later on the wall clock).
 */
export type MaintenanceSchedule =
  | { kind: 'once'; startsAt: string; endsAt: string }
  | { kind: 'weekly'; days: Weekday[]; startTime: string; durationMinutes: number; timezone: string }

/** One opening of a window, [start, end) in ms. */
export interface Occurrence {
  start: number
  end: number
}

// Enough openings to pass over any overlap a week-long duration can make.
const MAX_STEPS = 64
const crons = new Map<string, Cron>()

/** The weekly schedule as a croner pattern in its zone: croner places each start in local time across DST. */
function weeklyCron(schedule: Extract<MaintenanceSchedule, { kind: 'weekly' }>): Cron {
  const [hours, minutes] = schedule.startTime.split(':').map(Number)
  const days = schedule.days.map((day) => WEEKDAYS.indexOf(day)).join(',')
  const pattern = `${minutes} ${hours} * * ${days}`
  const key = `${pattern} ${schedule.timezone}`
  let cron = crons.get(key)
  if (!cron) {
    // No job function: nothing is scheduled, the pattern is only evaluated.
    cron = new Cron(pattern, { timezone: schedule.timezone, mode: '5-part', paused: true })
    crons.set(key, cron)
  }
  return cron
}

/** The opening covering `at` (the one ending last, when openings overlap), or null. */
export function occurrenceAt(schedule: MaintenanceSchedule, at: number): Occurrence | null {
  if (schedule.kind === 'once') {
    const start = Date.parse(schedule.startsAt)
    const end = Date.parse(schedule.endsAt)
    return start <= at && at < end ? { start, end } : null
  }
  const cron = weeklyCron(schedule)
  const durationMs = schedule.durationMinutes * 60_000
  let found: Occurrence | null = null
  // croner's nextRun is strictly after its argument: the first start after at - duration is the earliest opening
  // still running at `at`; later starts up to `at` end later.
  let from = new Date(at - durationMs)
  for (let step = 0; step < MAX_STEPS; step++) {
    const start = cron.nextRun(from)?.getTime()
    if (start === undefined || start > at) break
    found = { start, end: start + durationMs }
    from = new Date(start)
  }
  return found
}

/** The opening covering `at`, else the next one to start after it; null when none will. */
export function currentOrNext(schedule: MaintenanceSchedule, at: number): Occurrence | null {
  const current = occurrenceAt(schedule, at)
  if (current) return current
  if (schedule.kind === 'once') {
    const start = Date.parse(schedule.startsAt)
    return start > at ? { start, end: Date.parse(schedule.endsAt) } : null
  }
  const start = weeklyCron(schedule).nextRun(new Date(at))?.getTime()
  return start === undefined ? null : { start, end: start + schedule.durationMinutes * 60_000 }
}

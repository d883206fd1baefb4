import { Cron } from 'croner'

/** The keys of a heartbeat config that say when pings are due. */
export interface HeartbeatTiming {
  intervalSeconds?: number | undefined
  schedule?: string | undefined
  timezone?: string | undefined
  graceSeconds: number
}

/** When a heartbeat's pings are due: the run expected after a base (the last ping, or a missed run), and the grace. */
export interface HeartbeatTimes {
  graceMs: number
  /** The next expected run after `base`; null when a schedule never runs again. */
  expectedAfter(base: number): number | null
  /** What a missed run is recorded as. */
  missDetail(expected: number): string
}

function cronOf(schedule: string, timezone: string): Cron {
  // No job function: nothing is scheduled, the pattern is only evaluated.
  return new Cron(schedule, { timezone, mode: '5-part', paused: true })
}

/** Why a time zone is refused, or null for a known IANA zone. */
export function timezoneProblem(timezone: string): string | null {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone })
    return null
  } catch {
    return `unknown time zone "${timezone}" (an IANA name such as Europe/Berlin)`
  }
}

/** Why a 5-field cron expression is refused, or null when it parses and runs at least once more. */
export function scheduleProblem(schedule: string): string | null {
  try {
    if (cronOf(schedule, 'UTC').nextRun() === null) return 'this schedule never runs'
    return null
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)
    return `not a 5-field cron expression (minute hour day-of-month month day-of-week): ${reason}`
  }
}

/** The due times of a heartbeat: every interval after the base, or the schedule's next run in its time zone. */
export function heartbeatTimes(config: HeartbeatTiming): HeartbeatTimes {
  const graceMs = config.graceSeconds * 1000
  const grace = `${config.graceSeconds} s`
  if (config.schedule !== undefined) {
    const timezone = config.timezone ?? 'UTC'
    const cron = cronOf(config.schedule, timezone)
    const schedule = `${config.schedule} ${timezone}`
    return {
      graceMs,
      expectedAfter: (base) => cron.nextRun(new Date(base))?.getTime() ?? null,
      missDetail: (expected) =>
        `no ping for the run due ${new Date(expected).toISOString()} (${schedule}, grace ${grace})`,
    }
  }
  const intervalMs = (config.intervalSeconds ?? 0) * 1000
  return {
    graceMs,
    expectedAfter: (base) => base + intervalMs,
    missDetail: () => `no ping within ${(intervalMs + graceMs) / 1000} s`,
  }
}

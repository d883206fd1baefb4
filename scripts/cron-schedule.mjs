// The cron schedules of wrangler.toml, and when each is due: `npm start` fires them itself (wrangler dev never
// does). Cron Triggers run in UTC on the five fields minute, hour, day of month, month and day of week, with
// names (JAN, MON), `L`, `W` and `#`; croner reads all of these, and either day field matching is enough when
// both are restricted, as in every cron. What it cannot read is refused when `npm start` reads the schedule, not
// silently never run.
import { Cron } from 'croner'

/** A schedule's check: is it due in the minute that starts at `date`? */
export function parseCron(expression) {
  let cron
  try {
    // No job function and paused: nothing is scheduled, the pattern is only matched.
    cron = new Cron(expression, { timezone: 'UTC', mode: '5-part', paused: true })
  } catch (error) {
    throw new Error(`cron "${expression}": ${error instanceof Error ? error.message : String(error)}`)
  }
  return (date) => cron.match(date)
}

/** The `crons = [...]` list under [triggers] in wrangler.toml's text. */
export function readCrons(wranglerToml) {
  const triggers = wranglerToml.match(/^\[triggers\]\s*\ncrons\s*=\s*\[([^\]]*)\]/m)
  if (!triggers) throw new Error('wrangler.toml has no [triggers] crons = [...] list')
  return [...triggers[1].matchAll(/"([^"]+)"/g)].map((m) => m[1])
}

// The cron schedules of wrangler.toml, and when each is due: `npm start` fires them itself (wrangler dev never
// does). Cron Triggers run in UTC; the five fields are minute, hour, day of month, month, day of week, each `*`,
// a number, a range `a-b`, a step `*/n` or `a-b/n`, or a list of those. Anything else (names, `L`, `W`, `#`) is
// refused when `npm start` reads the schedule, not silently never run.

const FIELDS = [
  { name: 'minute', min: 0, max: 59, of: (date) => date.getUTCMinutes() },
  { name: 'hour', min: 0, max: 23, of: (date) => date.getUTCHours() },
  { name: 'day of month', min: 1, max: 31, of: (date) => date.getUTCDate() },
  { name: 'month', min: 1, max: 12, of: (date) => date.getUTCMonth() + 1 },
  // 0 and 7 are both Sunday.
  { name: 'day of week', min: 0, max: 7, of: (date) => date.getUTCDay() },
]

/** The values one field allows, or null for `*` (any). */
function parseField(text, { name, min, max }, expression) {
  if (text === '*') return null
  const values = new Set()
  for (const part of text.split(',')) {
    const match = part.match(/^(?:(\*)|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/)
    if (!match) throw new Error(`cron "${expression}": cannot read the ${name} field "${text}"`)
    const [, star, from, to, step] = match
    const first = star ? min : Number(from)
    const last = star ? max : to !== undefined ? Number(to) : step ? max : first
    const by = step ? Number(step) : 1
    if (first < min || last > max || first > last || by < 1)
      throw new Error(`cron "${expression}": the ${name} field "${text}" is outside ${min}-${max}`)
    for (let value = first; value <= last; value += by) values.add(value)
  }
  if (name === 'day of week' && values.has(7)) values.add(0)
  return values
}

/** A schedule's check: is it due in the minute that starts at `date`? */
export function parseCron(expression) {
  const texts = expression.trim().split(/\s+/)
  if (texts.length !== 5) throw new Error(`cron "${expression}": expected five fields`)
  const fields = FIELDS.map((field, i) => ({ ...field, values: parseField(texts[i], field, expression) }))
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields
  const allows = (field, date) => field.values === null || field.values.has(field.of(date))
  return (date) => {
    if (!allows(minute, date) || !allows(hour, date) || !allows(month, date)) return false
    // As in every cron: when both day fields are restricted, either one matching is enough.
    if (dayOfMonth.values !== null && dayOfWeek.values !== null)
      return allows(dayOfMonth, date) || allows(dayOfWeek, date)
    return allows(dayOfMonth, date) && allows(dayOfWeek, date)
  }
}

/** The `crons = [...]` list under [triggers] in wrangler.toml's text. */
export function readCrons(wranglerToml) {
  const triggers = wranglerToml.match(/^\[triggers\]\s*\ncrons\s*=\s*\[([^\]]*)\]/m)
  if (!triggers) throw new Error('wrangler.toml has no [triggers] crons = [...] list')
  return [...triggers[1].matchAll(/"([^"]+)"/g)].map((m) => m[1])
}

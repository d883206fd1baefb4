import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseCron, readCrons } from '../../scripts/cron-schedule.mjs'
import { cronTasks } from '../../src/cron/tasks.ts'

// What `npm start` fires each minute (scripts/cron-schedule.mjs): wrangler.toml's schedules, due as Cloudflare
// runs them (UTC).
const root = path.join(import.meta.dirname, '../..')
const at = (iso: string) => new Date(iso)

describe('the local cron schedule', () => {
  it("reads wrangler.toml's three schedules, and every task's schedule is one of them", () => {
    const crons = readCrons(readFileSync(path.join(root, 'wrangler.toml'), 'utf8'))
    expect(crons).toEqual(['* * * * *', '0 * * * *', '*/10 * * * *'])
    for (const task of cronTasks) expect(crons, task.name).toContain(task.schedule)
  })

  it('fires the minute cron every minute, the hourly one on the hour and the ten-minute one every tenth, in UTC', () => {
    const [minute, hourly, tenth] = ['* * * * *', '0 * * * *', '*/10 * * * *'].map(parseCron)
    expect(minute?.(at('2026-11-26T12:01:00Z'))).toBe(true)
    expect(hourly?.(at('2026-11-26T13:00:00Z'))).toBe(true)
    expect(hourly?.(at('2026-11-26T13:10:00Z'))).toBe(false)
    expect(tenth?.(at('2026-11-26T13:50:00Z'))).toBe(true)
    expect(tenth?.(at('2026-11-26T13:55:00Z'))).toBe(false)
    const nightly = parseCron('0 3 * * *')
    expect(nightly(at('2026-11-26T03:00:00Z'))).toBe(true)
    expect(nightly(at('2026-11-26T03:00:00+01:00'))).toBe(false)
  })

  it('reads ranges, steps and lists, and takes either day field when both are restricted', () => {
    const due = parseCron('30 4-6/2 1,15 * 5')
    expect(due(at('2026-11-01T04:30:00Z'))).toBe(true) // the 1st, a Sunday
    expect(due(at('2026-11-27T06:30:00Z'))).toBe(true) // a Friday
    expect(due(at('2026-11-26T04:30:00Z'))).toBe(false) // a Thursday, the 26th
    expect(due(at('2026-11-27T05:30:00Z'))).toBe(false) // 5 is not in 4-6/2
    expect(parseCron('0 0 * * 7')(at('2026-11-29T00:00:00Z'))).toBe(true) // 7 is Sunday too
  })

  it('reads names, L and # as Cloudflare does', () => {
    const lastOfMonth = parseCron('0 0 L * *')
    expect(lastOfMonth(at('2026-11-30T00:00:00Z'))).toBe(true)
    expect(lastOfMonth(at('2026-11-29T00:00:00Z'))).toBe(false)
    const january = parseCron('0 0 1 JAN *')
    expect(january(at('2027-01-01T00:00:00Z'))).toBe(true)
    expect(january(at('2026-12-01T00:00:00Z'))).toBe(false)
    const firstMonday = parseCron('0 9 * * MON#1')
    expect(firstMonday(at('2026-12-07T09:00:00Z'))).toBe(true)
    expect(firstMonday(at('2026-12-14T09:00:00Z'))).toBe(false)
  })

  it('refuses what it cannot read, naming the schedule, instead of never running it', () => {
    expect(() => parseCron('60 * * * *')).toThrow(/^cron "60 \* \* \* \*": .*minute/)
    expect(() => parseCron('0 0 * * 8')).toThrow(/^cron "0 0 \* \* 8": .*dayOfWeek/)
    expect(() => parseCron('* * * *')).toThrow(/^cron "\* \* \* \*"/)
    // Cron Triggers have no seconds field.
    expect(() => parseCron('0 * * * * *')).toThrow(/exactly 5 parts/)
    expect(() => parseCron('every minute')).toThrow(/^cron "every minute"/)
  })

  it('is due only at the start of the minute it is asked about', () => {
    const minute = parseCron('* * * * *')
    expect(minute(at('2026-11-26T12:01:00Z'))).toBe(true)
    expect(minute(at('2026-11-26T12:01:30Z'))).toBe(false)
  })
})

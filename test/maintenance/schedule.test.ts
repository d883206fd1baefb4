import { describe, expect, it } from 'vitest'
import { coverageAt } from '../../src/maintenance/coverage'
import {
  currentOrNext,
  type MaintenanceSchedule,
  occurrenceAt,
  type Weekday,
} from '../../src/maintenance/schedule'

const at = (text: string) => Date.parse(text)
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString())

const weekly = (
  startTime: string,
  durationMinutes: number,
  days: Weekday[] = ['sun'],
): MaintenanceSchedule => ({
  kind: 'weekly',
  days,
  startTime,
  durationMinutes,
  timezone: 'Europe/Berlin',
})

describe('maintenance schedules', () => {
  it('should open a weekly Europe/Berlin window at local time in winter and in summer time', () => {
    const sunday3 = weekly('03:00', 60)
    // 03:00 CET is 02:00 UTC; 03:00 CEST is 01:00 UTC.
    expect(occurrenceAt(sunday3, at('2027-03-21T02:30:00Z'))).toEqual({
      start: at('2027-03-21T02:00:00Z'),
      end: at('2027-03-21T03:00:00Z'),
    })
    expect(occurrenceAt(sunday3, at('2027-03-21T01:30:00Z'))).toBeNull()
    expect(iso(occurrenceAt(sunday3, at('2027-03-28T01:30:00Z'))?.start)).toBe('2027-03-28T01:00:00.000Z')
    expect(occurrenceAt(sunday3, at('2027-03-28T02:30:00Z'))).toBeNull()
    // Back to winter time on 31 October 2027.
    expect(iso(occurrenceAt(sunday3, at('2027-10-31T02:30:00Z'))?.start)).toBe('2027-10-31T02:00:00.000Z')
    expect(occurrenceAt(sunday3, at('2027-10-31T01:30:00Z'))).toBeNull()
  })

  it('should open a window set in the skipped hour at the end of the gap, and one in the repeated hour once', () => {
    const skipped = weekly('02:30', 60)
    expect(iso(occurrenceAt(skipped, at('2027-03-28T01:15:00Z'))?.start)).toBe('2027-03-28T01:00:00.000Z')
    const repeated = weekly('02:30', 60)
    // 02:30 happens twice on 31 October 2027 (00:30 and 01:30 UTC): the first one opens the window.
    expect(occurrenceAt(repeated, at('2027-10-31T01:15:00Z'))).toEqual({
      start: at('2027-10-31T00:30:00Z'),
      end: at('2027-10-31T01:30:00Z'),
    })
    expect(occurrenceAt(repeated, at('2027-10-31T01:45:00Z'))).toBeNull()
  })

  it('should count the duration in elapsed minutes across a change, and chain adjoining openings', () => {
    // Saturday 23:00 CET (22:00 UTC) for 5 hours ends at 03:00 UTC, 05:00 on the summer-time clock.
    const overnight = weekly('23:00', 300, ['sat'])
    expect(occurrenceAt(overnight, at('2027-03-28T02:59:00Z'))).toEqual({
      start: at('2027-03-27T22:00:00Z'),
      end: at('2027-03-28T03:00:00Z'),
    })
    const rules = [
      { id: 'a', title: 'First', schedule: weekly('01:00', 60) },
      { id: 'b', title: 'Second', schedule: weekly('02:00', 120) },
    ]
    expect(coverageAt(rules, at('2027-03-21T00:30:00Z'))).toEqual({
      title: 'First',
      until: at('2027-03-21T03:00:00Z'),
    })
    expect(coverageAt(rules, at('2027-03-21T03:00:00Z'))).toBeNull()
  })

  it('should say the opening running now, else the next one, and none after a one-off ended', () => {
    const oneOff: MaintenanceSchedule = {
      kind: 'once',
      startsAt: '2027-01-01T10:00:00.000Z',
      endsAt: '2027-01-01T11:00:00.000Z',
    }
    expect(currentOrNext(oneOff, at('2027-01-01T09:00:00Z'))?.start).toBe(at('2027-01-01T10:00:00Z'))
    expect(currentOrNext(oneOff, at('2027-01-01T10:30:00Z'))?.end).toBe(at('2027-01-01T11:00:00Z'))
    expect(currentOrNext(oneOff, at('2027-01-01T11:00:00Z'))).toBeNull()
    expect(iso(currentOrNext(weekly('03:00', 60), at('2027-03-22T00:00:00Z'))?.start)).toBe(
      '2027-03-28T01:00:00.000Z',
    )
  })
})

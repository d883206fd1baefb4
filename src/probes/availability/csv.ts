import type { DayFigures } from './window'

/** The CSV's columns, in order: the header row names them. */
export const CSV_COLUMNS = [
  'date',
  'from',
  'to',
  'uptime_ratio',
  'downtime_seconds',
  'incidents',
  'longest_incident_seconds',
  'maintenance_seconds',
  'checks',
] as const

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

/**
 * RFC 4180: a header row, then one record per day, each line ended by CRLF. No field can hold a comma, a quote
 * or a line break (dates, instants and integers), so none is quoted.
 */
export function availabilityCsv(days: readonly DayFigures[]): string {
  const records = days.map((day) =>
    [
      day.date,
      iso(day.from),
      iso(day.to),
      day.uptimeRatio,
      day.downtimeSeconds,
      day.incidents,
      day.longestIncidentSeconds,
      day.maintenanceSeconds,
      day.checks,
    ].join(','),
  )
  return [CSV_COLUMNS.join(','), ...records].map((line) => `${line}\r\n`).join('')
}

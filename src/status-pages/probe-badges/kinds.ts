import type { ShieldsColour } from '../badge'

export const UPTIME_DAYS = { 'uptime-24h': 1, 'uptime-7d': 7, 'uptime-30d': 30, 'uptime-90d': 90 } as const
export const BADGE_KINDS = ['status', ...Object.keys(UPTIME_DAYS), 'response', 'cert-expiry'] as const
export type BadgeKind = (typeof BADGE_KINDS)[number]
export type UptimeKind = keyof typeof UPTIME_DAYS

/** What a badge says: shields.io's endpoint fields. */
export interface Badge {
  label: string
  message: string
  color: ShieldsColour
}

export const isUptime = (kind: string): kind is UptimeKind => kind in UPTIME_DAYS

/** 9995 basis points is `99.95%`; all of them is `100%`. */
export function uptimeBadge(label: string, basisPoints: number): Badge {
  const message = basisPoints === 10_000 ? '100%' : `${(basisPoints / 100).toFixed(2)}%`
  const color: ShieldsColour =
    basisPoints >= 9990
      ? 'brightgreen'
      : basisPoints >= 9900
        ? 'green'
        : basisPoints >= 9700
          ? 'yellowgreen'
          : basisPoints >= 9500
            ? 'yellow'
            : basisPoints >= 9000
              ? 'orange'
              : 'red'
  return { label, message, color }
}

export function responseBadge(label: string, meanMs: number | null): Badge {
  return meanMs === null
    ? { label, message: 'no data', color: 'lightgrey' }
    : { label, message: `${meanMs} ms`, color: 'blue' }
}

/** Whole days left: expired red, under a week orange, under 30 days yellow, else green; unknown grey. */
export function certificateBadge(label: string, days: number | null): Badge {
  if (days === null) return { label, message: 'unknown', color: 'lightgrey' }
  if (days < 0) return { label, message: 'expired', color: 'red' }
  const message = `${days} day${days === 1 ? '' : 's'}`
  return { label, message, color: days < 7 ? 'orange' : days < 30 ? 'yellow' : 'brightgreen' }
}

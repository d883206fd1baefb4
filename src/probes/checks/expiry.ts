import type { Verdict } from './verdict.ts'

// How a certificate's validity is judged, shared by the edge (cert.ts) and the node agent.

const DAY_MS = 86_400_000

const day = (date: Date) => date.toISOString().slice(0, 10)
const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`

/** Expired (or not yet valid) is down, within `certWarnDays` degraded, else up. */
export function judgeExpiry(
  validity: { notAfter: Date; notBefore?: Date },
  latencyMs: number | null,
  certWarnDays: number,
  now = Date.now(),
): Verdict {
  const left = validity.notAfter.getTime() - now
  if (left <= 0) {
    const ago = Math.floor(-left / DAY_MS)
    const when = ago === 0 ? 'today' : `${plural(ago, 'day')} ago`
    return {
      outcome: 'down',
      latencyMs,
      detail: `certificate expired ${when} (on ${day(validity.notAfter)})`,
    }
  }
  if (validity.notBefore && validity.notBefore.getTime() > now)
    return {
      outcome: 'down',
      latencyMs,
      detail: `certificate is not valid before ${day(validity.notBefore)}`,
    }
  const days = Math.floor(left / DAY_MS)
  if (left < certWarnDays * DAY_MS)
    return {
      outcome: 'degraded',
      latencyMs,
      detail: `certificate expires in ${days === 0 ? 'less than a day' : plural(days, 'day')} (warn at ${certWarnDays})`,
    }
  return {
    outcome: 'up',
    latencyMs,
    detail: `certificate valid until ${day(validity.notAfter)} (${plural(days, 'day')} left)`,
  }
}

/**
 * The whole days a certificate had left when `judgeExpiry` wrote `detail`: negative once expired, null for any
 * other detail (not yet valid, not read). Read back here, beside the words it reads, for the public badge.
 */
export function daysLeftIn(detail: string): number | null {
  if (detail.startsWith('certificate expired ')) return -1
  if (detail.startsWith('certificate expires in less than a day')) return 0
  const left = /^certificate (?:valid until \S+ \((\d+) days? left\)|expires in (\d+) days?)/.exec(detail)
  const days = left?.[1] ?? left?.[2]
  return days === undefined ? null : Number(days)
}

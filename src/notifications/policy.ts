import type { NamedHostname, OperationalKind, operationalEvents } from '../db/schema/notifications'

export type OperationalEventRecord = typeof operationalEvents.$inferSelect

/** A problem to tell the installation about; `key` names the thing (`domain:<id>`), one open episode per key. */
export interface OperationalEvent {
  kind: OperationalKind
  key: string
  /** One line: what happened to what. */
  subject: string
  /** What the counterpart said and what to do. */
  detail: string
  /** Where in the panel to look (a path such as `/sites/<id>`). */
  link?: string | null
  /** The custom hostnames it is about, with the app's metadata: the webhook carries them. */
  customHostnames?: NamedHostname[]
}

/** What the policy weighs besides the key's own row. */
export interface PolicyLimits {
  cooldownMs: number
  maxPerHour: number
  /** Notifications sent in the last 60 minutes, all keys together. */
  sentLastHour: number
  /** Whether anyone would hear it now. */
  hasRecipients: boolean
}

/**
 * When operational notifications go out. Pure, like the probes' policy, per key:
 * - A raise opens the key and announces it, unless the cooldown since the key's last notification has not
 *   passed, the installation's `maxPerHour` is reached, or nobody is set to hear it: then the open key is held
 *   and the minute cron announces it once it may (see announceHeld). A key announced once is not announced again
 *   while it stays open, unless its subject changes (a node going from unreachable to refusing its config).
 * - A clear closes the key; when its episode was announced, the all-clear goes out at once, past the cooldown
 *   and the cap (it counts toward the cap): whoever heard of a problem hears that it ended. A held episode closes
 *   silently.
 */
export function decideRaise(
  row: OperationalEventRecord | null,
  event: OperationalEvent,
  now: Date,
  limits: PolicyLimits,
): { row: OperationalEventRecord; announce: boolean } {
  const open = row?.state === 'open'
  const announced = open && row.announcedAt !== null && row.subject === event.subject
  const next: OperationalEventRecord = {
    key: event.key,
    kind: event.kind,
    subject: event.subject,
    detail: event.detail,
    link: event.link ?? null,
    customHostnames: event.customHostnames ?? null,
    state: 'open',
    openedAt: open ? row.openedAt : now,
    closedAt: null,
    announcedAt: announced ? row.announcedAt : null,
    lastSentAt: row?.lastSentAt ?? null,
    version: (row?.version ?? 0) + 1,
  }
  if (announced || !mayAnnounce(next, now, limits)) return { row: next, announce: false }
  return { row: { ...next, announcedAt: now, lastSentAt: now }, announce: true }
}

/** Whether a held open key may be announced now. */
export function mayAnnounce(row: OperationalEventRecord, now: Date, limits: PolicyLimits): boolean {
  const cooling = row.lastSentAt !== null && now.getTime() - row.lastSentAt.getTime() < limits.cooldownMs
  return limits.hasRecipients && !cooling && limits.sentLastHour < limits.maxPerHour
}

/** The row after a clear, and whether the all-clear goes out; null when the key is not open. */
export function decideClear(
  row: OperationalEventRecord | null,
  now: Date,
): { row: OperationalEventRecord; allClear: boolean } | null {
  if (row?.state !== 'open') return null
  const allClear = row.announcedAt !== null
  return {
    row: {
      ...row,
      state: 'closed',
      closedAt: now,
      announcedAt: null,
      lastSentAt: allClear ? now : row.lastSentAt,
      version: row.version + 1,
    },
    allClear,
  }
}

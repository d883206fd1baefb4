import type { NamedHostname } from '../db/schema/notifications'
import type { ChannelMessage } from './channels/message'
import type { OperationalEventRecord } from './policy'

/** The JSON body of an operational webhook; its email says the same in words. */
export interface OperationalNotification {
  event: 'operational.raised' | 'operational.resolved'
  kind: OperationalEventRecord['kind']
  key: string
  subject: string
  detail: string
  /** Where in the panel to look: a path, or an absolute URL when the panel's origin is configured. */
  link: string | null
  /** When it was raised or resolved. */
  at: string
  /** When the episode began. */
  openedAt: string
  /** Only for the custom-hostname kinds: the hostnames it is about, each with the app's metadata (null if none). */
  customHostnames?: NamedHostname[]
}

/** The notification announcing (`raised`) or ending (`resolved`) the episode of `row`. */
export function notificationOf(
  row: OperationalEventRecord,
  event: 'raised' | 'resolved',
  at: Date,
  origin: string | undefined,
): OperationalNotification {
  return {
    event: event === 'raised' ? 'operational.raised' : 'operational.resolved',
    kind: row.kind,
    key: row.key,
    subject: row.subject,
    detail: row.detail,
    link: row.link && origin && row.link.startsWith('/') ? `${origin}${row.link}` : row.link,
    at: at.toISOString(),
    openedAt: row.openedAt.toISOString(),
    ...(row.customHostnames ? { customHostnames: row.customHostnames } : {}),
  }
}

/** The alert email's subject and plain text. */
export function operationalEmail(notification: OperationalNotification): { subject: string; text: string } {
  const resolved = notification.event === 'operational.resolved'
  const lines = [
    resolved ? `Resolved: ${notification.subject}` : notification.subject,
    '',
    resolved
      ? `It began at ${notification.openedAt} and ended at ${notification.at}.`
      : `When: ${notification.at}`,
    ...(resolved ? [] : ['', notification.detail]),
    ...(notification.link ? ['', `See: ${notification.link}`] : []),
    '',
    `Event: ${notification.kind} (${notification.key})`,
  ]
  return { subject: `[${resolved ? 'RESOLVED' : 'PROBLEM'}] ${notification.subject}`, text: lines.join('\n') }
}

/** The notification as every channel kind renders it; PagerDuty gets one dedup key per problem key. */
export function operationalChannelMessage(notification: OperationalNotification): ChannelMessage {
  const { subject, text } = operationalEmail(notification)
  const resolved = notification.event === 'operational.resolved'
  return {
    level: resolved ? 'recovery' : 'problem',
    severity: resolved ? 'info' : 'critical',
    title: subject,
    text,
    dedupKey: `operational-${notification.key}`,
    source: notification.link ?? notification.key,
    body: JSON.stringify(notification),
  }
}

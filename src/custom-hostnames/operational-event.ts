import type { NamedHostname } from '../db/schema/notifications'
import type { OperationalEvent } from '../notifications/operational'
import type { Failure } from './remedies'
import type { CustomHostnameRecord } from './rows'

/** The operational event key of a custom hostname: one episode whether it failed or awaits a manual removal. */
export function hostnameEventKey(id: string): string {
  return `custom-hostname:${id}`
}

/** The `custom-hostname.failed` or `custom-hostname.removal-manual` event, with the remedy the row shows. */
export function hostnameEvent(
  row: CustomHostnameRecord,
  state: 'failed' | 'removal-manual',
  failure: Failure,
): OperationalEvent {
  return {
    kind: state === 'failed' ? 'custom-hostname.failed' : 'custom-hostname.removal-manual',
    key: hostnameEventKey(row.id),
    subject:
      state === 'failed'
        ? `Custom hostname ${row.hostname} failed`
        : `Custom hostname ${row.hostname} needs its records removed by hand`,
    detail: [failure.remedy, ...(failure.detail ? [failure.detail] : [])].join('\n'),
    link: `/sites/${row.siteId}`,
    customHostnames: [namedHostname(row)],
  }
}

/** A row as an operational event's webhook names it. */
export function namedHostname(row: CustomHostnameRecord): NamedHostname {
  return { id: row.id, siteId: row.siteId, hostname: row.hostname, metadata: row.metadata }
}

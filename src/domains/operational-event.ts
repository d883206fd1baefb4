import type { OperationalEvent } from '../notifications/operational'
import type { DomainRecord } from './rows'

/** The operational event key of a domain. */
export function domainEventKey(domainId: string): string {
  return `domain:${domainId}`
}

/** The `domain.failed` event: the hostname, and the remedy the row now shows. */
export function domainFailedEvent(row: DomainRecord, remedy: string): OperationalEvent {
  return {
    kind: 'domain.failed',
    key: domainEventKey(row.id),
    subject: `Domain ${row.hostname} failed`,
    detail: remedy,
    link: `/sites/${row.siteId}`,
  }
}

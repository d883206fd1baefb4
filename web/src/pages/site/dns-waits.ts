import { useSession } from '../../session'
import { useDomainPages, useHostnamePages } from './site-lists'

/** Why an http route's hostname does not reach the site yet, as the Routes table says it. */
export type DnsWait = 'customer' | 'writing' | 'verifying'

export const DNS_WAIT_TEXT: Record<DnsWait, string> = {
  customer: 'waiting for DNS: the customer creates the records',
  writing: 'waiting for DNS: the panel is writing the records',
  verifying: "waiting for DNS: the domain's records are not verified yet",
}

/**
 * The site's hostnames whose DNS does not point here yet: custom hostnames in `instructions` (the customer's records
 * to create) or `pending` (being written), and domains whose DNS is not verified. Read from the pages of each list
 * the site page has loaded (the cards' own queries), each only for a principal who may view it.
 */
export function useDnsWaits(siteId: string): Map<string, DnsWait> {
  const { can } = useSession()
  const hostnames = useHostnamePages(siteId, '', can('custom-hostnames:view'))
  const domains = useDomainPages(siteId, '', can('domains:view'))
  const waits = new Map<string, DnsWait>()
  for (const domain of domains.data?.pages.flatMap((page) => page.domains) ?? [])
    if (domain.dnsState !== 'verified') waits.set(domain.hostname, 'verifying')
  for (const row of hostnames.data?.pages.flatMap((page) => page.hostnames) ?? []) {
    if (row.state === 'instructions') waits.set(row.hostname, 'customer')
    else if (row.state === 'pending') waits.set(row.hostname, 'writing')
  }
  return waits
}

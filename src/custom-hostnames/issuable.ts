import type { CustomHostnameRecord } from './rows'

/**
 * Whether the node may obtain a certificate for a registered hostname when the site has no ask URL: once the
 * panel knows the planned records are in place, because it wrote them (`active`) or a lookup saw them resolve.
 * Mere registration is not enough: a name left pointing at the node must not get a certificate for whoever
 * registers it.
 */
export function customHostnameIssuable(row: Pick<CustomHostnameRecord, 'state' | 'dnsResolvedAt'>): boolean {
  return row.state === 'active' || row.dnsResolvedAt !== null
}

import { bareName } from '../../lib/dns-name'
import {
  DNS_PROVIDER_LABELS,
  DnsProviderError,
  type DnsProviderId,
  type DnsRecordInput,
  type DnsZone,
} from './types'

/** A DNS name as the panel compares it: lowercase, no trailing dot. */
export function normalizeDnsName(name: string): string {
  return bareName(name.trim().toLowerCase())
}

/**
 * A DNS name in the ASCII form every provider API wants: lowercase, no trailing dot, international labels in
 * punycode (UTS #46, as a URL's host is written). A name that cannot be one is refused as invalid.
 */
export function asciiDnsName(provider: DnsProviderId, name: string): string {
  const bare = normalizeDnsName(name)
  // An ASCII name needs no mapping (and `_` or `*` labels are left as they are).
  if (/^[\x21-\x7e]*$/.test(bare)) return bare
  try {
    // The suffix keeps a numeric last label from being read as an IPv4 address.
    return normalizeDnsName(new URL(`http://${bare}.invalid/`).hostname.slice(0, -'.invalid'.length))
  } catch {
    throw new DnsProviderError(provider, 'invalid', `${name} is not a valid DNS name`)
  }
}

/** The zone among `zones` that holds `hostname`: the one with the longest matching suffix, or null. */
export function bestZone(zones: readonly DnsZone[], hostname: string): DnsZone | null {
  const host = normalizeDnsName(hostname)
  let best: DnsZone | null = null
  for (const zone of zones) {
    const name = normalizeDnsName(zone.name)
    const holds = host === name || host.endsWith(`.${name}`)
    if (holds && (!best || name.length > best.name.length)) best = { id: zone.id, name }
  }
  return best
}

/**
 * The record name relative to its zone, as APIs keyed by zone want it; the apex is written the way the
 * provider writes it (`@` or the empty string).
 */
export function relativeName(
  provider: DnsProviderId,
  fqdn: string,
  zoneName: string,
  apex: '@' | '',
): string {
  const name = normalizeDnsName(fqdn)
  const zone = normalizeDnsName(zoneName)
  if (name === zone) return apex
  if (name.endsWith(`.${zone}`)) return name.slice(0, -(zone.length + 1))
  throw new DnsProviderError(provider, 'invalid', `${name} is not inside the zone ${zone}`)
}

/** The fully qualified form of a name listed relative to its zone (`@` or the empty string: the apex). */
export function fqdnOf(relative: string, zoneName: string): string {
  const name = normalizeDnsName(relative)
  const zone = normalizeDnsName(zoneName)
  return name === '' || name === '@' ? zone : `${name}.${zone}`
}

/** A hostname target written absolute (trailing dot), for APIs that read an undotted target as relative. */
export function absoluteTarget(target: string): string {
  return target.endsWith('.') ? target : `${target}.`
}

/** Refuses a proxied record on a provider without the proxy capability, rather than silently writing it plain. */
export function assertNotProxied(provider: DnsProviderId, record: DnsRecordInput): void {
  if (record.proxied) {
    throw new DnsProviderError(provider, 'invalid', `${DNS_PROVIDER_LABELS[provider]} cannot proxy records`)
  }
}

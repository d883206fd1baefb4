import { parse } from 'tldts'
import { decodePunycode } from '../lib/punycode'

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Why a custom hostname is not acceptable, or null when it is: a lowercase fully qualified name of at most 253
 * characters under a public suffix (never the suffix itself), no wildcard, not an IP address, IDNs in punycode.
 */
export function customHostnameProblem(hostname: string): string | null {
  if (hostname.length > 253) return 'must be at most 253 characters'
  if (hostname.includes('*')) return 'must not be a wildcard'
  if (hostname.endsWith('.')) return 'must be written without the trailing dot'
  if (/[^\x21-\x7e]/.test(hostname))
    return 'must be ASCII: write an internationalised name in punycode (xn--…)'
  if (hostname !== hostname.toLowerCase()) return 'must be lowercase'
  const parsed = parse(hostname, { allowPrivateDomains: true })
  if (parsed.isIp || hostname.includes(':')) return 'must be a hostname, not an IP address'
  const labels = hostname.split('.')
  if (labels.length < 2) return 'must be a fully qualified name (at least two labels)'
  if (labels.some((label) => label.length > 63)) return 'labels must be at most 63 characters'
  if (!labels.every((label) => LABEL.test(label)))
    return 'labels must be letters, digits and inner hyphens (a-z, 0-9, -)'
  if (labels.some((label) => label.startsWith('xn--') && decodePunycode(label.slice(4)) === null))
    return 'holds an xn-- label that is not valid punycode'
  if (!parsed.isIcann && !parsed.isPrivate) return 'must be under a public top-level domain'
  if (parsed.domain === null || parsed.publicSuffix === hostname)
    return 'must be a name under a public suffix, not the suffix itself'
  return null
}

/** The registrable domain (public suffix plus one label) of an accepted hostname. */
export function registrableDomain(hostname: string): string {
  return parse(hostname, { allowPrivateDomains: true }).domain ?? hostname
}

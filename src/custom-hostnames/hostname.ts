import { parse } from 'tldts'
import { isIP } from '../lib/ip'
import { decodePunycode } from '../lib/punycode'

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
// A last label the URL parser reads as a number turns the whole name into an IPv4 address (`10.1`, `x.0x7f`).
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/

/** RFC 6761 and RFC 8375 names plus ICANN's private-use `.internal`: no public CA issues for them. */
const SPECIAL_USE_SUFFIXES = ['test', 'example', 'invalid', 'localhost', 'internal', 'home.arpa'] as const

/**
 * Why a hostname is not written as the API takes it, or null: a lowercase fully qualified name of at most 253
 * characters and 63 per label, no wildcard, not an IP address, IDNs in punycode. Whether its suffix is acceptable
 * depends on the zones the panel controls: see `externalNameProblem`.
 */
export function hostnameSyntaxProblem(hostname: string): string | null {
  if (hostname.length > 253) return 'must be at most 253 characters'
  if (hostname.includes('*')) return 'must not be a wildcard'
  if (hostname.endsWith('.')) return 'must be written without the trailing dot'
  if (/[^\x21-\x7e]/.test(hostname))
    return 'must be ASCII: write an internationalised name in punycode (xn--…)'
  if (hostname !== hostname.toLowerCase()) return 'must be lowercase'
  const labels = hostname.split('.')
  if (isIP(hostname) || hostname.includes(':') || NUMERIC_LABEL.test(labels.at(-1) ?? ''))
    return 'must be a hostname, not an IP address'
  if (labels.length < 2) return 'must be a fully qualified name (at least two labels)'
  if (labels.some((label) => label.length > 63)) return 'labels must be at most 63 characters'
  if (!labels.every((label) => LABEL.test(label)))
    return 'labels must be letters, digits and inner hyphens (a-z, 0-9, -)'
  if (labels.some((label) => label.startsWith('xn--') && decodePunycode(label.slice(4)) === null))
    return 'holds an xn-- label that is not valid punycode'
  return null
}

/** The special-use suffix the hostname ends in (or is), or null. */
export function specialUseSuffix(hostname: string): string | null {
  return SPECIAL_USE_SUFFIXES.find((suffix) => hostname === suffix || hostname.endsWith(`.${suffix}`)) ?? null
}

/**
 * Why a syntactically valid name outside every zone the panel controls is not acceptable, or null: it must be under
 * a public suffix (never the suffix itself), or, when special-use names are allowed, under one of those.
 */
export function externalNameProblem(hostname: string, specialUseAllowed: boolean): string | null {
  const special = specialUseSuffix(hostname)
  if (special) {
    if (!specialUseAllowed)
      return `is under the special-use name .${special}: accepted only in development, with the pebble issuer, or in a zone the panel controls`
    return hostname === special ? `must be a name under .${special}, not .${special} itself` : null
  }
  const parsed = parse(hostname, { allowPrivateDomains: true })
  if (!parsed.isIcann && !parsed.isPrivate)
    return 'must be under a public top-level domain, or in a zone the panel controls'
  if (parsed.domain === null || parsed.publicSuffix === hostname)
    return 'must be a name under a public suffix, not the suffix itself'
  return null
}

/** The registrable domain of an accepted external name: its public (or special-use) suffix plus one label. */
export function registrableDomain(hostname: string): string {
  const special = specialUseSuffix(hostname)
  if (special)
    return hostname
      .split('.')
      .slice(-special.split('.').length - 1)
      .join('.')
  return parse(hostname, { allowPrivateDomains: true }).domain ?? hostname
}

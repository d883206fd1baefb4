import type { Env } from '../env'
import { invalid } from '../rpc/errors'

/** Production unless ENVIRONMENT is exactly `development`: a missing or misspelled var must not open the rule. */
export function isProduction(env: Pick<Env, 'ENVIRONMENT'>): boolean {
  return env.ENVIRONMENT !== 'development'
}

// Names only a local resolver answers: RFC 6761 localhost, mDNS .local, RFC 8375 .home.arpa (and the rest of
// .arpa, which names no web host), ICANN's private-use .internal, and the private TLDs networks use in practice.
const LOCAL_ONLY_SUFFIXES = [
  'localhost',
  'localdomain',
  'local',
  'internal',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
  'arpa',
]

function ipv4Octets(text: string): number[] | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null
  const octets = parts.map(Number)
  return octets.every((o) => o <= 255) ? octets : null
}

// IANA's special-purpose IPv4 registry (bar its globally reachable anycast blocks), multicast and reserved space.
function isSpecialIpv4([a = 0, b = 0, c = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 192 && b === 88 && c === 99) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
}

// Expects the URL parser's serialisation: lowercase hex groups, at most one `::`, no dotted IPv4 tail.
function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::')
  if (halves.length > 2) return null
  const groups = (half: string) => (half === '' ? [] : half.split(':'))
  const left = groups(halves[0] ?? '')
  const right = halves.length === 2 ? groups(halves[1] ?? '') : []
  const zeros = 8 - left.length - right.length
  if (zeros < 0 || (halves.length === 1 && zeros !== 0)) return null
  const all = [...left, ...Array<string>(zeros).fill('0'), ...right]
  return all.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? all.map((g) => Number.parseInt(g, 16)) : null
}

// Only global unicast (2000::/3) may pass, which leaves out every form that embeds IPv4 outside it (::/96,
// ::ffff:0:0/96, ::ffff:0:0:0/96, 64:ff9b::/96, 64:ff9b:1::/48) along with loopback, unique-local, link-local
// and multicast. Inside it: 2001::/23 (Teredo 2001::/32 among the IETF assignments), documentation
// 2001:db8::/32 and 3fff::/20, and 6to4 2002::/16, which a relay turns into any IPv4 address.
function isSpecialIpv6([a = 0, b = 0]: number[]): boolean {
  return (
    (a & 0xe000) !== 0x2000 ||
    (a === 0x2001 && (b < 0x0200 || b === 0x0db8)) ||
    a === 0x2002 ||
    (a === 0x3fff && b < 0x1000)
  )
}

function isSpecialAddress(host: string): boolean | null {
  if (host.startsWith('[')) {
    const groups = ipv6Groups(host.slice(1, -1))
    return groups === null || isSpecialIpv6(groups)
  }
  const octets = ipv4Octets(host)
  return octets === null ? null : isSpecialIpv4(octets)
}

/** Whether a resolver's A or AAAA answer is a public unicast address the panel may send to. */
export function isPublicAddress(address: string): boolean {
  const literal = address.includes(':') ? `[${address}]` : address
  if (!URL.canParse(`http://${literal}/`)) return false
  return isSpecialAddress(new URL(`http://${literal}/`).hostname) === false
}

/** The problem with `hostname` (as the URL parser gives it) in production, or null for a public host. */
function hostProblem(hostname: string): string | null {
  // A trailing dot names the same host: `localhost.` is localhost.
  const host = hostname.replace(/\.$/, '')
  const special = isSpecialAddress(host)
  if (special !== null)
    return special ? 'must not point at a loopback or private address in production' : null
  if (host === 'localhost' || host.endsWith('.localhost'))
    return 'must not point at a loopback or private address in production'
  if (!host.includes('.')) return 'must not use a single-label host name in production'
  const tld = host.slice(host.lastIndexOf('.') + 1)
  if (LOCAL_ONLY_SUFFIXES.includes(tld))
    return `must not use a host name under .${tld}, which only a local network resolves, in production`
  return null
}

/**
 * Why the panel refuses to send requests to `url`, or null when it may: http or https only, no credentials in
 * the URL, and in production https only to a public address or a host name public DNS can answer for. Where a
 * public name actually points is checked when a request is sent (fetchOutbound).
 */
export function outboundUrlProblem(url: string, production: boolean): string | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'must be an absolute http or https URL'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL'
  if (parsed.username || parsed.password) return 'must not carry credentials'
  if (!production) return null
  if (parsed.protocol !== 'https:') return 'must use https in production'
  return hostProblem(parsed.hostname)
}

/** Whether the URL parser's `hostname` is an IP literal rather than a name a resolver must answer for. */
export function isAddressLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || ipv4Octets(hostname.replace(/\.$/, '')) !== null
}

/** Throws 400 naming `field` when the panel may not send requests to `url` (see outboundUrlProblem). */
export function assertOutboundUrl(env: Pick<Env, 'ENVIRONMENT'>, field: string, url: string): void {
  const problem = outboundUrlProblem(url, isProduction(env))
  if (problem) throw invalid(field, problem)
}

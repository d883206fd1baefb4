import type { Env } from '../env'
import { invalid } from '../rpc/errors'

/** Production is declared by the ENVIRONMENT var; anything else is local development. */
export function isProduction(env: Pick<Env, 'ENVIRONMENT'>): boolean {
  return env.ENVIRONMENT === 'production'
}

function ipv4Octets(host: string): number[] | null {
  const parts = host.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null
  const octets = parts.map(Number)
  return octets.every((o) => o <= 255) ? octets : null
}

function isPrivateIpv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19))
  )
}

// The URL parser has already normalised the address: IPv4 in dotted decimal, IPv6 compressed and lowercase.
function isPrivateIpv6(host: string): boolean {
  if (host === '::' || host === '::1') return true
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
  if (mapped) {
    const high = Number.parseInt(mapped[1] ?? '0', 16)
    return isPrivateIpv4([high >> 8, high & 0xff])
  }
  // Unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8, NAT64 64:ff9b::/96.
  return /^(f[cd]|fe[89abcdef]|ff)/.test(host) || host.startsWith('64:ff9b::')
}

function isLoopbackOrPrivate(host: string): boolean {
  // A trailing dot names the same host: `localhost.` is localhost.
  const hostname = host.replace(/\.$/, '')
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true
  if (hostname.startsWith('[')) return isPrivateIpv6(hostname.slice(1, -1))
  const octets = ipv4Octets(hostname)
  return octets !== null && isPrivateIpv4(octets)
}

/**
 * Why the panel refuses to send requests to `url`, or null when it may: http or https only, no credentials in
 * the URL, and in production https only to a public address.
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
  if (isLoopbackOrPrivate(parsed.hostname))
    return 'must not point at a loopback or private address in production'
  return null
}

/** Throws 400 naming `field` when the panel may not send requests to `url` (see outboundUrlProblem). */
export function assertOutboundUrl(env: Pick<Env, 'ENVIRONMENT'>, field: string, url: string): void {
  const problem = outboundUrlProblem(url, isProduction(env))
  if (problem) throw invalid(field, problem)
}

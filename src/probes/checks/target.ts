import { isDnsName } from '../../dns-servers/records/validation'
import type { Env } from '../../env'
import { bareName } from '../../lib/dns-name'
import { isIP } from '../../lib/ip'
import { isProduction, outboundUrlProblem } from '../../lib/outbound-url'
import { invalid } from '../../rpc/errors'
import type { ProbeType } from '../config'

// `target` is the address a probe checks, in one canonical form per type; `config` holds how it is checked.
//   http       an absolute http(s) URL
//   tcp        host:port (an IPv6 address in brackets)
//   dns        the DNS name looked up (lowercase, no final dot)
//   cert       host, or host:port when the port is not 443
//   heartbeat  a label: a heartbeat has no address, its pings come to it

/** A host and port as a check connects to them; `host` keeps an IPv6 address's brackets. */
export interface HostPort {
  host: string
  port: number
}

const TLS_PORT = 443
const MAX_LABEL = 200
const HOST_PORT = 'must be host:port (an IPv6 address in brackets) with a port from 1 to 65535'
const HOST_OR_HOST_PORT =
  'must be a host or host:port (an IPv6 address in brackets) with a port from 1 to 65535'
const DNS_NAME =
  'must be a DNS name: labels of letters, digits, hyphens and underscores, at most 253 characters'
const UNSAFE_IN_LABEL = /[\p{Cc}\p{Cf}\p{Cs}]/u

/** The canonical host (lowercase name, dotted IPv4, bracketed RFC 5952 IPv6), or null when it is none. */
function canonicalHost(text: string): string | null {
  if (!/^\[[0-9a-fA-F:.]+\]$|^[A-Za-z0-9._-]+$/.test(text)) return null
  let host: string
  try {
    // The URL parser lowercases and rewrites other IPv4 spellings (0x7f.1) the way a connect would read them.
    host = bareName(new URL(`http://${text}/`).hostname)
  } catch {
    return null
  }
  return host.startsWith('[') || isIP(host) === 4 || isDnsName(host) ? host : null
}

/** Splits `host:port` (or a bare host when `defaultPort` is given); null when either part is not valid. */
export function parseHostPort(text: string, defaultPort?: number): HostPort | null {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(text)
  const port = match?.[2] === undefined ? defaultPort : Number(match[2])
  const host = match?.[1] === undefined ? null : canonicalHost(match[1])
  if (host === null || port === undefined || port < 1 || port > 65_535) return null
  return { host, port }
}

/** Why production refuses to connect to `host` (loopback, private, local-only names), or null. */
export function hostProblem(env: Pick<Env, 'ENVIRONMENT'>, host: string): string | null {
  // The outbound rule judges hosts by URL; the URL form is only a carrier here, nothing is fetched.
  return outboundUrlProblem(`https://${host}/`, isProduction(env))
}

function checkedHost(production: boolean, target: HostPort | null, why: string): HostPort {
  if (!target) throw invalid('target', why)
  const problem = outboundUrlProblem(`https://${target.host}/`, production)
  if (problem) throw invalid('target', problem)
  return target
}

/**
 * Validates `target` for a probe of `type` and returns its canonical form; a 400 naming `target` otherwise.
 * `fromEdge`: the edge checks it, so production's outbound rule applies; a probe checked from nodes only is not
 * held to it (the operator chose the node, whose network the target may be on).
 */
export function normalizeTarget(
  env: Pick<Env, 'ENVIRONMENT'>,
  type: ProbeType,
  target: string,
  fromEdge = true,
): string {
  const production = fromEdge && isProduction(env)
  switch (type) {
    case 'http': {
      const problem = outboundUrlProblem(target, production)
      if (problem) throw invalid('target', problem)
      return new URL(target).href
    }
    case 'tcp': {
      const { host, port } = checkedHost(production, parseHostPort(target), HOST_PORT)
      return `${host}:${port}`
    }
    case 'cert': {
      const { host, port } = checkedHost(production, parseHostPort(target, TLS_PORT), HOST_OR_HOST_PORT)
      return port === TLS_PORT ? host : `${host}:${port}`
    }
    case 'dns': {
      const name = bareName(target.toLowerCase())
      if (isIP(name) !== 0) throw invalid('target', 'must be a DNS name, not an address')
      if (!isDnsName(name)) throw invalid('target', DNS_NAME)
      return name
    }
    case 'heartbeat': {
      const label = target.trim()
      if (UNSAFE_IN_LABEL.test(label)) throw invalid('target', 'must be one line without control characters')
      if (label.length < 1 || label.length > MAX_LABEL)
        throw invalid('target', `must hold 1 to ${MAX_LABEL} characters`)
      return label
    }
  }
}

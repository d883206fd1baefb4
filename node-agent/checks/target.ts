import { isIP } from 'node:net'

/** Where a check connects: the host (an IPv6 address without brackets) and port, and whether the host is a name. */
export interface CheckAddress {
  host: string
  port: number
  /** The host is a DNS name (sent as SNI), not an address literal. */
  named: boolean
}

/** Splits `host:port`, `[v6]:port` or, with `defaultPort`, a bare host; null when it is none of those. */
export function checkAddress(target: string, defaultPort?: number): CheckAddress | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(target)
  const host = match?.[1] ?? match?.[2]
  const port = match?.[3] === undefined ? defaultPort : Number(match[3])
  if (!host || port === undefined || port < 1 || port > 65_535) return null
  return { host, port, named: isIP(host) === 0 }
}

/** An error's words, with Node's code when it has one (`connect ECONNREFUSED 127.0.0.1:9`). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? error.cause : null
  return cause ? `${error.message} (${cause.message})` : error.message
}

import { isIP } from 'node:net'

export interface Upstream {
  host: string
  port: number
}

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?)*$/i

/** Parses `<address>:<port>` (the port after the last colon, so a bare or bracketed IPv6 address works). */
export function parseUpstream(text: string): Upstream | null {
  const cut = text.lastIndexOf(':')
  if (cut < 1) return null
  const rawHost = text.slice(0, cut)
  const host = rawHost.startsWith('[') && rawHost.endsWith(']') ? rawHost.slice(1, -1) : rawHost
  const portText = text.slice(cut + 1)
  const port = Number(portText)
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) return null
  if (isIP(host) === 0 && !HOSTNAME.test(host)) return null
  return { host, port }
}

/** The address in the form Caddy's `dial` and URLs expect (`[v6]:port`). */
export function dialAddress(upstream: Upstream): string {
  return isIP(upstream.host) === 6
    ? `[${upstream.host}]:${upstream.port}`
    : `${upstream.host}:${upstream.port}`
}

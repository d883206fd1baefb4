import type { EdgeState, Forward, Vhost } from '../agent-contract/v1'
import type { RouteEdgeConfig } from '../db/schema/routes'

/** The port an http route targets when its site has none. */
export const DEFAULT_SITE_PORT = 80

/** `<address>:<port>`, with an IPv6 address in brackets. */
export function upstreamOf(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`
}

/** The proxy device's name on the node: one per listen port and proto, as the unique index has it. */
export function deviceNameOf(proto: Forward['proto'], listenPort: number): string {
  return `proxy-${proto}-${listenPort}`
}

/** A new http route's part of the edge state. */
export function vhostConfig(
  hostname: string,
  address: string,
  port: number,
  issuer: Vhost['issuer'],
): RouteEdgeConfig {
  const vhost: Vhost = { hostname, upstream: upstreamOf(address, port), issuer }
  return { vhost, forward: null, appliedVersion: null, firewallManaged: null, error: null }
}

/** A new raw route's part of the edge state. */
export function forwardConfig(
  listenPort: number,
  proto: Forward['proto'],
  address: string,
  port: number,
): RouteEdgeConfig {
  const forward: Forward = { listenPort, proto, upstream: upstreamOf(address, port) }
  return { vhost: null, forward, appliedVersion: null, firewallManaged: null, error: null }
}

/** Whether the node may obtain a vhost's certificate now, and the app's ask URL that decides instead. */
export interface Issuance {
  issuable: boolean
  askUrl: string | null
}

/** A live route as the edge state needs it: its part, and what its hostname's certificate may do. */
export interface LiveRoute {
  edgeConfig: RouteEdgeConfig
  issuance: Issuance
}

/** A live route's vhost, with what its certificate may do (none for a raw route). */
export function vhostOf({ edgeConfig, issuance }: LiveRoute): Vhost[] {
  if (!edgeConfig.vhost) return []
  const { issuable, askUrl } = issuance
  return [{ ...edgeConfig.vhost, issuable, ...(askUrl ? { askUrl } : {}) }]
}

/** The node's whole desired edge state at `configVersion`: the parts of every live route, in the order given. */
export function renderEdgeState(configVersion: number, live: readonly LiveRoute[]): EdgeState {
  return {
    configVersion,
    vhosts: live.flatMap(vhostOf),
    forwards: live.flatMap(({ edgeConfig }) => (edgeConfig.forward ? [edgeConfig.forward] : [])),
  }
}

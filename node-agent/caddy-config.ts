import path from 'node:path'
import { ISSUERS, type Vhost } from '../src/agent-contract/v1.ts'
import { parseCaddyAdmin } from './caddy-admin.ts'
import { TLS_LOGGERS } from './caddy-tls-log.ts'
import type { AgentConfig } from './config.ts'
import { splitHostPort } from './config.ts'
import type { ServedState } from './served-state.ts'
import { dialAddress, parseUpstream } from './upstream.ts'

/** The agent's own vhost: its hostname, the issuer of its certificate, and where its contract API listens. */
export interface AgentVhost {
  hostname: string
  issuer: Vhost['issuer']
  upstream: string
}

/**
 * What a rendering needs besides the desired state: the agent's settings, where its ask gate answers, and its
 * own vhost (null: none).
 */
export type RenderOptions = Pick<
  AgentConfig,
  | 'caddyAdmin'
  | 'storageDir'
  | 'stateDir'
  | 'httpsListen'
  | 'httpListen'
  | 'acmeDirectories'
  | 'pebbleCaRoot'
  | 'acmeEmail'
> & { askUrl: string; agentVhost: AgentVhost | null }

type Json = Record<string, unknown>

/** The file Caddy writes its certificate issuance log to, which the agent follows (certificate-attempt-watch.ts). */
export function tlsLogFile(stateDir: string): string {
  return path.join(stateDir, 'caddy-tls.log')
}

/**
 * Caddy's tls and ACME client loggers, also written as JSON to a file the agent follows. A file, not Caddy's
 * `net` writer: Caddy 2.6 dials a net writer when it loads a config and refuses the whole config when nobody
 * listens, so an agent that is down or restarting would stop Caddy from loading or starting. A file costs
 * Caddy nothing while the agent is away, and the agent reads what it missed when it is back. It rolls at
 * 10 MB, one old file kept.
 */
function tlsLog(stateDir: string): Json {
  return {
    writer: { output: 'file', filename: tlsLogFile(stateDir), roll_size_mb: 10, roll_keep: 1 },
    encoder: { format: 'json' },
    level: 'INFO',
    include: [...TLS_LOGGERS],
  }
}

function issuer(vhostIssuer: Vhost['issuer'], options: RenderOptions): Json {
  return {
    module: 'acme',
    ca: options.acmeDirectories[vhostIssuer],
    ...(options.acmeEmail ? { email: options.acmeEmail } : {}),
    ...(vhostIssuer === 'pebble' && options.pebbleCaRoot
      ? { trusted_roots_pem_files: [options.pebbleCaRoot] }
      : {}),
  }
}

function route(hosts: readonly string[], dial: string): Json {
  return {
    match: [{ host: hosts }],
    handle: [{ handler: 'reverse_proxy', upstreams: [{ dial }] }],
    terminal: true,
  }
}

function listenAddress(address: string): string {
  const { host, port } = splitHostPort(address)
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}

/** What Caddy is given of the served state: see ServedState. */
export type RenderedState = Pick<ServedState, 'groups' | 'issuers'>

/**
 * The TLS automation policies: on demand behind the agent's `ask` gate, one catch-all policy for the issuer of
 * most names and one listing its subjects for each other issuer. Caddy 2.6 looks a handshake's name up in the
 * policies' subjects one by one, so the long list never is one: the gate already decides who may get a
 * certificate, the catch-all only picks the issuer.
 */
function policies(state: RenderedState, options: RenderOptions): Json[] {
  const names = new Map<Vhost['issuer'], string[]>()
  const own = options.agentVhost
  if (own) names.set(own.issuer, [own.hostname])
  const count = (name: Vhost['issuer']) =>
    (state.issuers.get(name)?.size ?? 0) + (own?.issuer === name ? 1 : 0)
  const issuers = ISSUERS.filter((name) => count(name) > 0)
  if (issuers.length === 0) return []
  const main = issuers.reduce((most, name) => (count(name) > count(most) ? name : most))
  return [
    ...issuers
      .filter((name) => name !== main)
      .map((name) => ({
        subjects: [...(names.get(name) ?? []), ...(state.issuers.get(name) ?? [])],
        issuers: [issuer(name, options)],
        on_demand: true,
      })),
    { issuers: [issuer(main, options)], on_demand: true },
  ]
}

/**
 * Renders the served state as a Caddy 2.6 JSON config: one TLS server with one route per upstream, whose host
 * matcher lists all its hostnames (Caddy binary-searches a list longer than 100), one plain HTTP server (ACME
 * HTTP-01, which Caddy answers before any route, and a redirect to HTTPS), and TLS automation that obtains
 * certificates only on demand (see `policies`). The agent's own vhost comes first and its name is reserved.
 */
export function renderCaddyConfig(state: RenderedState, options: RenderOptions): Json {
  const httpsPort = splitHostPort(options.httpsListen).port
  const httpPort = splitHostPort(options.httpListen).port
  const portSuffix = httpsPort === 443 ? '' : `:${httpsPort}`
  const own = options.agentVhost
  const ownDial = own ? parseUpstream(own.upstream) : null
  const routes = [
    ...(own && ownDial ? [route([own.hostname], dialAddress(ownDial))] : []),
    ...[...state.groups].map(([dial, hosts]) => route(hosts, dial)),
  ]
  return {
    // /load replaces the whole config, the admin endpoint included: keep it exactly where the operator put it
    // (a unix socket by default), so a load never moves it back to TCP.
    admin: { listen: parseCaddyAdmin(options.caddyAdmin).listen },
    storage: { module: 'file_system', root: options.storageDir },
    logging: { logs: { certificates: tlsLog(options.stateDir) } },
    apps: {
      http: {
        http_port: httpPort,
        https_port: httpsPort,
        servers: {
          edge: {
            listen: [listenAddress(options.httpsListen)],
            routes,
            tls_connection_policies: [{}],
            // Certificates come only on demand (never eagerly at load), and the plain server below redirects.
            automatic_https: { disable_certificates: true, disable_redirects: true },
          },
          edge_http: {
            listen: [listenAddress(options.httpListen)],
            routes: [
              {
                handle: [
                  {
                    handler: 'static_response',
                    status_code: 308,
                    headers: { Location: [`https://{http.request.host}${portSuffix}{http.request.uri}`] },
                  },
                ],
              },
            ],
            automatic_https: { disable: true },
          },
        },
      },
      tls: { automation: { policies: policies(state, options), on_demand: { ask: options.askUrl } } },
    },
  }
}

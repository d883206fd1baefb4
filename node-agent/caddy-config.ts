import type { EdgeState, Vhost } from '../src/agent-contract/v1.ts'
import { parseCaddyAdmin } from './caddy-admin.ts'
import type { AgentConfig } from './config.ts'
import { splitHostPort } from './config.ts'
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
  | 'httpsListen'
  | 'httpListen'
  | 'acmeDirectories'
  | 'pebbleCaRoot'
  | 'acmeEmail'
> & { askUrl: string; agentVhost: AgentVhost | null }

type Json = Record<string, unknown>

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

function route(vhost: Pick<Vhost, 'hostname' | 'upstream'>): Json {
  const upstream = parseUpstream(vhost.upstream)
  if (!upstream)
    throw new Error(`vhost ${vhost.hostname}: upstream ${vhost.upstream} is not <address>:<port>`)
  return {
    match: [{ host: [vhost.hostname] }],
    handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: dialAddress(upstream) }] }],
    terminal: true,
  }
}

function listenAddress(address: string): string {
  const { host, port } = splitHostPort(address)
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}

/**
 * Renders the desired edge state as a Caddy 2.6 JSON config: one TLS server proxying each vhost to its upstream,
 * one plain HTTP server (ACME HTTP-01, which Caddy answers before any route, and a redirect to HTTPS), and TLS
 * automation that obtains certificates only on demand, per issuer, behind the agent's `ask` gate. The agent's
 * own vhost comes first and its name is reserved: a vhost of the state with the same name is left out.
 */
export function renderCaddyConfig(state: EdgeState, options: RenderOptions): Json {
  const httpsPort = splitHostPort(options.httpsListen).port
  const httpPort = splitHostPort(options.httpListen).port
  const portSuffix = httpsPort === 443 ? '' : `:${httpsPort}`
  const own = options.agentVhost
  const vhosts = [...(own ? [own] : []), ...state.vhosts.filter((vhost) => vhost.hostname !== own?.hostname)]
  const byIssuer = new Map<Vhost['issuer'], string[]>()
  for (const vhost of vhosts)
    byIssuer.set(vhost.issuer, [...(byIssuer.get(vhost.issuer) ?? []), vhost.hostname])
  return {
    // /load replaces the whole config, the admin endpoint included: keep it exactly where the operator put it
    // (a unix socket by default), so a load never moves it back to TCP.
    admin: { listen: parseCaddyAdmin(options.caddyAdmin).listen },
    storage: { module: 'file_system', root: options.storageDir },
    apps: {
      http: {
        http_port: httpPort,
        https_port: httpsPort,
        servers: {
          edge: {
            listen: [listenAddress(options.httpsListen)],
            routes: vhosts.map(route),
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
      tls: {
        automation: {
          policies: [...byIssuer].map(([name, subjects]) => ({
            subjects,
            issuers: [issuer(name, options)],
            on_demand: true,
          })),
          on_demand: { ask: options.askUrl },
        },
      },
    },
  }
}

import { describe, expect, it } from 'vitest'
import { type AgentVhost, renderCaddyConfig } from '../../node-agent/caddy-config.ts'
import { renderFirewallRules } from '../../node-agent/firewall.ts'
import { ServedState } from '../../node-agent/served-state.ts'
import {
  forwardFailure,
  validateEdgeDelta,
  validateEdgeState,
  vhostFailure,
} from '../../node-agent/validate-state.ts'
import type { EdgeState } from '../../src/agent-contract/v1.ts'

const options = {
  caddyAdmin: 'http://127.0.0.1:2019',
  storageDir: '/var/lib/agent',
  stateDir: '/var/lib/agent',
  httpsListen: ':443',
  httpListen: ':80',
  acmeDirectories: { pebble: 'https://127.0.0.1:14000/dir', letsencrypt: 'https://acme.example/directory' },
  pebbleCaRoot: '/etc/agent/pebble.pem',
  acmeEmail: null,
  askUrl: 'http://127.0.0.1:8791/ask',
  agentVhost: null,
}

const state: EdgeState = {
  configVersion: 3,
  vhosts: [
    { hostname: 'shop.example.com', upstream: '10.0.0.5:3000', issuer: 'letsencrypt' },
    { hostname: 'app.test', upstream: 'fd00::5:8080', issuer: 'pebble' },
  ],
  forwards: [{ listenPort: 2222, proto: 'tcp', upstream: '10.0.0.5:22' }],
}

function served(edge: EdgeState, own: AgentVhost | null = null): ServedState {
  const state = new ServedState(own?.hostname ?? null)
  state.change(state.diff(edge, new Set()), edge.configVersion)
  return state
}

describe('renderCaddyConfig', () => {
  it("should have Caddy write its issuance loggers, only those, as JSON to the agent's log file", () => {
    const config = renderCaddyConfig(served(state), options)
    expect(config.logging).toEqual({
      logs: {
        certificates: {
          writer: {
            output: 'file',
            filename: '/var/lib/agent/caddy-tls.log',
            roll_size_mb: 10,
            roll_keep: 1,
          },
          encoder: { format: 'json' },
          level: 'INFO',
          include: ['tls.obtain', 'tls.renew', 'tls.on_demand', 'http.acme_client'],
        },
      },
    })
  })

  it('should proxy each vhost to its upstream on the TLS server and keep the admin endpoint where it was', () => {
    const config = renderCaddyConfig(served(state), options)
    expect(config.admin).toEqual({ listen: '127.0.0.1:2019' })
    expect(config.storage).toEqual({ module: 'file_system', root: '/var/lib/agent' })
    const http = (config.apps as { http: Record<string, unknown> }).http
    expect(http).toMatchObject({ http_port: 80, https_port: 443 })
    expect(http.servers).toMatchObject({
      edge: {
        listen: [':443'],
        tls_connection_policies: [{}],
        automatic_https: { disable_certificates: true, disable_redirects: true },
        routes: [
          {
            match: [{ host: ['shop.example.com'] }],
            handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: '10.0.0.5:3000' }] }],
            terminal: true,
          },
          {
            match: [{ host: ['app.test'] }],
            handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: '[fd00::5]:8080' }] }],
            terminal: true,
          },
        ],
      },
      edge_http: {
        listen: [':80'],
        routes: [
          {
            handle: [
              {
                handler: 'static_response',
                status_code: 308,
                headers: { Location: ['https://{http.request.host}{http.request.uri}'] },
              },
            ],
          },
        ],
      },
    })
  })

  it('should obtain certificates only on demand behind the ask gate: a catch-all for the main issuer', () => {
    const config = renderCaddyConfig(served(state), options)
    // One name each: the tie goes to the first issuer, and the other lists its subjects before the catch-all.
    expect((config.apps as { tls: unknown }).tls).toEqual({
      automation: {
        policies: [
          {
            subjects: ['shop.example.com'],
            issuers: [{ module: 'acme', ca: 'https://acme.example/directory' }],
            on_demand: true,
          },
          {
            issuers: [
              {
                module: 'acme',
                ca: 'https://127.0.0.1:14000/dir',
                trusted_roots_pem_files: ['/etc/agent/pebble.pem'],
              },
            ],
            on_demand: true,
          },
        ],
        on_demand: { ask: 'http://127.0.0.1:8791/ask' },
      },
    })
  })

  it('should route each upstream once, listing its hostnames sorted, after the agent vhost', () => {
    const agentVhost = {
      hostname: 'agent.example.com',
      issuer: 'letsencrypt' as const,
      upstream: '127.0.0.1:8790',
    }
    const many: EdgeState = {
      configVersion: 9,
      vhosts: [
        ...Array.from({ length: 150 }, (_, i) => ({
          hostname: `c${String(149 - i).padStart(3, '0')}.saas.example`,
          upstream: '10.0.0.7:443',
          issuer: 'letsencrypt' as const,
        })),
        { hostname: 'b.other.example', upstream: '10.0.0.8:80', issuer: 'pebble' },
        { hostname: 'a.other.example', upstream: '10.0.0.8:80', issuer: 'letsencrypt' },
        // The agent's own name is reserved: a vhost of that name is neither routed nor given a policy.
        { hostname: 'agent.example.com', upstream: '10.0.0.9:80', issuer: 'pebble' },
      ],
      forwards: [],
    }
    const config = renderCaddyConfig(served(many, agentVhost), { ...options, agentVhost })
    const apps = config.apps as {
      http: {
        servers: { edge: { routes: { match: { host: string[] }[]; handle: { upstreams: unknown }[] }[] } }
      }
      tls: { automation: { policies: { subjects?: string[] }[] } }
    }
    const routes = apps.http.servers.edge.routes
    expect(routes.map((route) => route.handle[0]?.upstreams)).toEqual([
      [{ dial: '127.0.0.1:8790' }],
      [{ dial: '10.0.0.7:443' }],
      [{ dial: '10.0.0.8:80' }],
    ])
    expect(routes[0]?.match).toEqual([{ host: ['agent.example.com'] }])
    const saas = routes[1]?.match[0]?.host ?? []
    expect(saas).toHaveLength(150)
    expect(saas).toEqual([...saas].sort())
    expect(routes[2]?.match).toEqual([{ host: ['a.other.example', 'b.other.example'] }])
    // 152 names for letsencrypt (the agent's included): its policy is the catch-all; pebble lists its one name.
    expect(apps.tls.automation.policies.map((policy) => policy.subjects)).toEqual([
      ['b.other.example'],
      undefined,
    ])
  })

  it('should redirect to the HTTPS port when it is not 443', () => {
    const config = renderCaddyConfig(served({ ...state, vhosts: [] }), {
      ...options,
      httpsListen: '127.0.0.1:8443',
      httpListen: '127.0.0.1:8080',
    })
    expect(JSON.stringify(config)).toContain('https://{http.request.host}:8443{http.request.uri}')
    expect(JSON.stringify(config)).toContain('"listen":["127.0.0.1:8443"]')
  })
})

describe('renderFirewallRules', () => {
  it('should refill the agent chain with one ACCEPT per forward', () => {
    expect(renderFirewallRules(state.forwards)).toEqual([
      '*filter',
      ':HOSTING-PANEL - [0:0]',
      '-A HOSTING-PANEL -p tcp -m tcp --dport 2222 -j ACCEPT',
      'COMMIT',
    ])
  })
})

describe('validateEdgeState, validateEdgeDelta and the entries that cannot serve', () => {
  const bad: EdgeState = {
    configVersion: 1,
    vhosts: [
      { hostname: '{env.SECRET}.example.com', upstream: '10.0.0.5:3000', issuer: 'pebble' },
      { hostname: 'a.example.com', upstream: '10.0.0.5', issuer: 'pebble' },
      { hostname: 'a.example.com', upstream: '10.0.0.5:3000', issuer: 'pebble' },
    ],
    forwards: [
      { listenPort: 53, proto: 'udp', upstream: '10.0.0.5:53' },
      { listenPort: 53, proto: 'udp', upstream: '10.0.0.6:53' },
      { listenPort: 54, proto: 'udp', upstream: 'nowhere' },
    ],
  }

  it('should refuse a state listing a hostname or port twice, naming the field', () => {
    expect(validateEdgeState(bad).map((issue) => issue.path)).toEqual([
      'vhosts.2.hostname',
      'forwards.1.listenPort',
    ])
    expect(validateEdgeState(state)).toEqual([])
  })

  it('should refuse changes that set and remove one hostname or port', () => {
    const issues = validateEdgeDelta({
      vhosts: [{ hostname: 'a.example.com', upstream: '10.0.0.5:3000', issuer: 'pebble' }],
      removeHostnames: ['b.example.com', 'a.example.com'],
      forwards: [{ listenPort: 53, proto: 'udp', upstream: '10.0.0.5:53' }],
      removeForwards: [{ listenPort: 53, proto: 'udp' }],
    })
    expect(issues.map((issue) => issue.path)).toEqual(['removeHostnames.1', 'removeForwards.0'])
  })

  it('should fail only the entries a proxy cannot match safely or dial, and keep the others', () => {
    expect(bad.vhosts.map(vhostFailure)).toEqual([
      {
        kind: 'vhost',
        hostname: '{env.SECRET}.example.com',
        error: 'the hostname must be a lowercase DNS name (punycode)',
      },
      { kind: 'vhost', hostname: 'a.example.com', error: 'the upstream 10.0.0.5 is not <address>:<port>' },
      null,
    ])
    expect(bad.forwards.map(forwardFailure)).toEqual([
      null,
      null,
      {
        kind: 'forward',
        listenPort: 54,
        proto: 'udp',
        error: 'the upstream nowhere is not <address>:<port>',
      },
    ])
    expect([...state.vhosts.map(vhostFailure), ...state.forwards.map(forwardFailure)]).toEqual([
      null,
      null,
      null,
    ])
  })
})

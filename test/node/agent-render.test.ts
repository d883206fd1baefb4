import { describe, expect, it } from 'vitest'
import { renderCaddyConfig } from '../../node-agent/caddy-config.ts'
import { renderFirewallRules } from '../../node-agent/firewall.ts'
import { unservableEntries, validateEdgeState, withoutEntries } from '../../node-agent/validate-state.ts'
import type { EdgeState } from '../../src/agent-contract/v1.ts'

const options = {
  caddyAdmin: 'http://127.0.0.1:2019',
  storageDir: '/var/lib/agent',
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

describe('renderCaddyConfig', () => {
  it('should proxy each vhost to its upstream on the TLS server and keep the admin endpoint where it was', () => {
    const config = renderCaddyConfig(state, options)
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

  it('should obtain certificates only on demand, per issuer, behind the ask gate', () => {
    const config = renderCaddyConfig(state, options)
    expect((config.apps as { tls: unknown }).tls).toEqual({
      automation: {
        policies: [
          {
            subjects: ['shop.example.com'],
            issuers: [{ module: 'acme', ca: 'https://acme.example/directory' }],
            on_demand: true,
          },
          {
            subjects: ['app.test'],
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

  it('should serve the agent under its own hostname first, reserving the name', () => {
    const agentVhost = { hostname: 'shop.example.com', issuer: 'pebble' as const, upstream: '127.0.0.1:8790' }
    const config = renderCaddyConfig(state, { ...options, agentVhost })
    const apps = config.apps as {
      http: { servers: { edge: { routes: unknown[] } } }
      tls: { automation: { policies: unknown[] } }
    }
    expect(apps.http.servers.edge.routes).toEqual([
      {
        match: [{ host: ['shop.example.com'] }],
        handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: '127.0.0.1:8790' }] }],
        terminal: true,
      },
      {
        match: [{ host: ['app.test'] }],
        handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: '[fd00::5]:8080' }] }],
        terminal: true,
      },
    ])
    expect(apps.tls.automation.policies).toEqual([
      expect.objectContaining({ subjects: ['shop.example.com', 'app.test'], on_demand: true }),
    ])
  })

  it('should redirect to the HTTPS port when it is not 443', () => {
    const config = renderCaddyConfig(
      { ...state, vhosts: [] },
      { ...options, httpsListen: '127.0.0.1:8443', httpListen: '127.0.0.1:8080' },
    )
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

describe('validateEdgeState and unservableEntries', () => {
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

  it('should fail only the entries a proxy cannot match safely or dial, and keep the others', () => {
    const failed = unservableEntries(bad)
    expect(failed).toEqual([
      {
        kind: 'vhost',
        hostname: '{env.SECRET}.example.com',
        error: 'the hostname must be a lowercase DNS name (punycode)',
      },
      { kind: 'vhost', hostname: 'a.example.com', error: 'the upstream 10.0.0.5 is not <address>:<port>' },
      {
        kind: 'forward',
        listenPort: 54,
        proto: 'udp',
        error: 'the upstream nowhere is not <address>:<port>',
      },
    ])
    expect(withoutEntries(bad, failed)).toEqual({
      configVersion: 1,
      vhosts: [],
      forwards: [
        { listenPort: 53, proto: 'udp', upstream: '10.0.0.5:53' },
        { listenPort: 53, proto: 'udp', upstream: '10.0.0.6:53' },
      ],
    })
    expect(unservableEntries(state)).toEqual([])
  })
})

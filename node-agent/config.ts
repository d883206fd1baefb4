import path from 'node:path'
import { parseArgs } from 'node:util'
import { ISSUERS, type Vhost } from '../src/agent-contract/v1.ts'
import { parseCaddyAdmin } from './caddy-admin.ts'

/** Everything the agent is told at start: where it listens, whom it serves and what it drives. */
export interface AgentConfig {
  /** `host:port` of the signed contract API the panel calls. */
  listen: string
  /**
   * The name under which the node's Caddy serves the contract API over HTTPS (a vhost of the agent's own, proxied
   * to `listen`), and the issuer of its certificate; null: no such vhost.
   */
  agentHostname: string | null
  agentIssuer: Vhost['issuer']
  /** Where the agent keeps what must survive a restart (the last applied edge state). */
  stateDir: string
  /** `host:port` of the unsigned on-demand TLS `ask` gate; only Caddy on this machine should reach it. */
  askListen: string
  /** The panel's base URL for certificate reports, or null to report nothing. */
  panelUrl: string | null
  nodeId: string | null
  secret: string
  /**
   * Where Caddy's admin API listens: `unix//<path>` (by default `caddy-admin.sock` in the state directory) or a
   * TCP `host:port`; see parseCaddyAdmin.
   */
  caddyAdmin: string
  caddyBinary: string
  /** Caddy's storage root (certificates, ACME accounts); the agent sets it in every config it loads. */
  storageDir: string
  /** Where Caddy listens for HTTPS and for HTTP (ACME HTTP-01 and redirects), `host:port` or `:port`. */
  httpsListen: string
  httpListen: string
  acmeDirectories: { pebble: string; letsencrypt: string }
  /** A PEM bundle trusted for pebble: its ACME server's TLS root and its issuing root. */
  pebbleCaRoot: string | null
  acmeEmail: string | null
  /** The address raw forwards listen on. */
  forwardHost: string
  manageFirewall: boolean
  /** The command the rendered iptables-restore lines are piped to when the firewall is managed. */
  firewallCommand: readonly string[]
  /** How often the agent compares the certificates Caddy holds with those it reported, in milliseconds. */
  certificateScanMs: number
  /** The DNS server (`ip` or `ip:port`) the node's dns probe checks ask; null: the node's own (/etc/resolv.conf). */
  checkResolver: string | null
}

const OPTIONS = {
  listen: { env: 'AGENT_LISTEN', default: '127.0.0.1:8790' },
  'agent-hostname': { env: 'AGENT_HOSTNAME', default: '' },
  'agent-issuer': { env: 'AGENT_ISSUER', default: 'letsencrypt' },
  // systemd's StateDirectory= sets STATE_DIRECTORY; readConfig falls back to it before this default.
  'state-dir': { env: 'AGENT_STATE_DIR', default: '/var/lib/hosting-panel-agent' },
  'ask-listen': { env: 'AGENT_ASK_LISTEN', default: '127.0.0.1:8791' },
  'panel-url': { env: 'AGENT_PANEL_URL', default: '' },
  'node-id': { env: 'AGENT_NODE_ID', default: '' },
  secret: { env: 'AGENT_SECRET', default: '' },
  // Empty: the unix socket `caddy-admin.sock` inside the state directory.
  'caddy-admin': { env: 'AGENT_CADDY_ADMIN', default: '' },
  'caddy-bin': { env: 'AGENT_CADDY_BIN', default: 'caddy' },
  // Empty: `caddy` inside the state directory.
  'storage-dir': { env: 'AGENT_STORAGE_DIR', default: '' },
  'https-listen': { env: 'AGENT_HTTPS_LISTEN', default: ':443' },
  'http-listen': { env: 'AGENT_HTTP_LISTEN', default: ':80' },
  'acme-pebble': { env: 'AGENT_ACME_PEBBLE', default: 'https://127.0.0.1:14000/dir' },
  'acme-letsencrypt': {
    env: 'AGENT_ACME_LETSENCRYPT',
    default: 'https://acme-v02.api.letsencrypt.org/directory',
  },
  'pebble-ca-root': { env: 'AGENT_PEBBLE_CA_ROOT', default: '' },
  'acme-email': { env: 'AGENT_ACME_EMAIL', default: '' },
  'forward-host': { env: 'AGENT_FORWARD_HOST', default: '0.0.0.0' },
  'manage-firewall': { env: 'AGENT_MANAGE_FIREWALL', default: 'off' },
  'firewall-command': { env: 'AGENT_FIREWALL_COMMAND', default: 'iptables-restore --noflush' },
  'certificate-scan-minutes': { env: 'AGENT_CERTIFICATE_SCAN_MINUTES', default: '60' },
  'check-resolver': { env: 'AGENT_CHECK_RESOLVER', default: '' },
} as const

// Lowercase DNS names only, as for the vhosts of an edge state.
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/

type OptionName = keyof typeof OPTIONS

/** Reads the agent's settings from flags (`--listen 127.0.0.1:8790`), then environment variables, then defaults. */
export function readConfig(argv: readonly string[], env: Record<string, string | undefined>): AgentConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(Object.keys(OPTIONS).map((name) => [name, { type: 'string' }])),
    strict: true,
  })
  const get = (name: OptionName): string => {
    const flag = values[name]
    if (typeof flag === 'string') return flag
    return env[OPTIONS[name].env] ?? OPTIONS[name].default
  }
  const secret = get('secret')
  if (secret === '') throw new Error('the agent secret is required (AGENT_SECRET or --secret)')
  const firewall = get('manage-firewall')
  if (!['on', 'off'].includes(firewall)) throw new Error('--manage-firewall must be "on" or "off"')
  const optional = (name: OptionName): string | null => (get(name) === '' ? null : get(name))
  const agentHostname = optional('agent-hostname')
  if (agentHostname !== null && !HOSTNAME.test(agentHostname))
    throw new Error('--agent-hostname must be a lowercase DNS name')
  const agentIssuer = ISSUERS.find((issuer) => issuer === get('agent-issuer'))
  if (!agentIssuer) throw new Error(`--agent-issuer must be one of ${ISSUERS.join(', ')}`)
  const scanMinutes = Number(get('certificate-scan-minutes'))
  if (!Number.isInteger(scanMinutes) || scanMinutes < 1)
    throw new Error('--certificate-scan-minutes must be a whole number of minutes, at least 1')
  const stateDir =
    typeof values['state-dir'] === 'string'
      ? values['state-dir']
      : (env.AGENT_STATE_DIR ?? env.STATE_DIRECTORY ?? OPTIONS['state-dir'].default)
  const caddyAdmin = optional('caddy-admin') ?? `unix/${path.resolve(stateDir, 'caddy-admin.sock')}`
  parseCaddyAdmin(caddyAdmin)
  return {
    listen: get('listen'),
    agentHostname,
    agentIssuer,
    stateDir,
    askListen: get('ask-listen'),
    panelUrl: optional('panel-url'),
    nodeId: optional('node-id'),
    secret,
    caddyAdmin,
    caddyBinary: get('caddy-bin'),
    storageDir: optional('storage-dir') ?? path.join(stateDir, 'caddy'),
    httpsListen: get('https-listen'),
    httpListen: get('http-listen'),
    acmeDirectories: { pebble: get('acme-pebble'), letsencrypt: get('acme-letsencrypt') },
    pebbleCaRoot: optional('pebble-ca-root'),
    acmeEmail: optional('acme-email'),
    forwardHost: get('forward-host'),
    manageFirewall: firewall === 'on',
    firewallCommand: get('firewall-command').split(/\s+/).filter(Boolean),
    certificateScanMs: scanMinutes * 60_000,
    checkResolver: optional('check-resolver'),
  }
}

/** Splits `host:port`, `[v6]:port` or `:port` (host then empty). */
export function splitHostPort(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address)
  const port = Number(match?.[3])
  if (!match || port > 65535) throw new Error(`not a host:port address: ${address}`)
  return { host: match[1] ?? match[2] ?? '', port }
}

import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { agentSignatureHeaders } from '../../src/lib/agent-signature.ts'
import { caddyReachable, parseCaddyAdmin } from '../caddy-admin.ts'
import type { AgentConfig } from '../config.ts'

// Test support for the agent's suites (and the end-to-end peers suite): free ports, a real Caddy, signed calls.

export const CADDY_APT_LINE = 'apt-get install -y --no-install-recommends caddy'

const HANDED_OUT = Symbol.for('hosting-panel.test.handed-out-ports')

// Every port this process hands out. A chosen port is released before its user binds it, and in that moment the
// kernel can offer it again (pebble once took the port the agent's vhost was about to listen on), so none is given
// out twice. Kept on globalThis: a process can load this module more than once (vitest's config and its global setup
// are bundled apart), and every copy must see the same ports.
const registry = globalThis as { [HANDED_OUT]?: Set<number> }
const handedOut: Set<number> = registry[HANDED_OUT] ?? new Set<number>()
registry[HANDED_OUT] = handedOut

/** A port free on 127.0.0.1 right now, never handed out before by this process. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1)
  return port ?? 0
}

/**
 * `count` distinct ports free on 127.0.0.1 right now, none in `exclude` and none handed out before by this process.
 * They are held open together while chosen, so the kernel cannot offer one of them twice.
 */
export async function freePorts(count: number, exclude: readonly number[] = []): Promise<number[]> {
  const held: Server[] = []
  const chosen: number[] = []
  try {
    while (chosen.length < count) {
      const server = createServer()
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen({ host: '127.0.0.1', port: 0 }, resolve)
      })
      held.push(server)
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      if (port !== 0 && !exclude.includes(port) && !handedOut.has(port)) chosen.push(port)
    }
    for (const port of chosen) handedOut.add(port)
    return chosen
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))))
  }
}

/** An agent config for tests: everything on 127.0.0.1, free ports, the given storage dir (the state inside it). */
export function testAgentConfig(
  storageDir: string,
  caddyAdmin: string,
  overrides: Partial<AgentConfig> = {},
): AgentConfig {
  return {
    listen: '127.0.0.1:0',
    agentHostname: null,
    agentIssuer: 'pebble',
    stateDir: path.join(storageDir, 'agent-state'),
    askListen: '127.0.0.1:0',
    panelUrl: null,
    nodeId: null,
    secret: 'test-agent-secret-0123456789',
    caddyAdmin,
    caddyBinary: 'caddy',
    storageDir,
    httpsListen: '127.0.0.1:1',
    httpListen: '127.0.0.1:2',
    acmeDirectories: { pebble: 'https://127.0.0.1:14000/dir', letsencrypt: 'https://127.0.0.1:14001/dir' },
    pebbleCaRoot: null,
    acmeEmail: null,
    forwardHost: '127.0.0.1',
    manageFirewall: false,
    firewallCommand: ['iptables-restore', '--noflush'],
    certificateScanMs: 3_600_000,
    checkResolver: null,
    ...overrides,
  }
}

/** POSTs a body to the agent signed with `secret` for that path (or with the given headers instead). */
export async function signedPost(
  baseUrl: string,
  path: string,
  body: unknown,
  secret: string,
  headers?: Record<string, string>,
): Promise<{ status: number; contentType: string | null; body: Record<string, unknown> }> {
  const raw = JSON.stringify(body)
  const signature =
    headers ??
    (await agentSignatureHeaders(secret, { direction: 'panel-to-agent', method: 'POST', path, body: raw }))
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signature },
    body: raw,
  })
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: (await response.json()) as Record<string, unknown>,
  }
}

/** A Caddy started for a test: its admin address, data and config in a temporary directory. */
export interface CaddyProcess {
  /** As `--caddy-admin` takes it. */
  admin: string
  dir: string
  stop(): Promise<void>
}

/** A Caddy whose admin API is on TCP, which a test can also fetch. */
export interface TcpCaddyProcess extends CaddyProcess {
  adminUrl: string
}

/** Starts `caddy run` with its admin API alone, on a free 127.0.0.1 port. */
export async function startCaddy(): Promise<TcpCaddyProcess> {
  const adminUrl = `http://127.0.0.1:${await freePort()}`
  return { ...(await runCaddy(() => adminUrl)), adminUrl }
}

/** Starts `caddy run` with its admin API alone, on a unix socket in its directory. */
export function startCaddyOnSocket(): Promise<CaddyProcess> {
  return runCaddy((dir) => `unix/${path.join(dir, 'admin.sock')}`)
}

/** Runs Caddy with the admin address `adminIn(dir)`; fails naming the apt line when Caddy is missing. */
async function runCaddy(adminIn: (dir: string) => string): Promise<CaddyProcess> {
  if (spawnSync('caddy', ['version']).error) {
    throw new Error(`the caddy binary is missing: install Debian's caddy (${CADDY_APT_LINE})`)
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-caddy-'))
  const admin = adminIn(dir)
  const configFile = path.join(dir, 'initial.json')
  await writeFile(configFile, JSON.stringify({ admin: { listen: parseCaddyAdmin(admin).listen } }))
  const child: ChildProcess = spawn('caddy', ['run', '--config', configFile], {
    env: {
      ...process.env,
      HOME: dir,
      XDG_DATA_HOME: path.join(dir, 'data'),
      XDG_CONFIG_HOME: path.join(dir, 'config'),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log = (log + chunk).slice(-4000)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    child.kill('SIGKILL')
    await exited
    await rm(dir, { recursive: true, force: true })
  }
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) break
    if (await caddyReachable(admin)) return { admin, dir, stop }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await stop()
  throw new Error(`caddy did not start:\n${log}`)
}

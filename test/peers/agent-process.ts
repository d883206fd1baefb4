import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { stopProcess } from './stop-process'

// The reference node agent as a real process: the bundle `npm run build:agent` makes, run by the system's Node
// (Debian's nodejs, not the repository's), as an operator runs it. Restarted whenever a test file enrolls its
// node (the node id and secret are start settings, and the panel makes the node id); killed and started again
// with the same state directory to test what survives a restart.

/** What the agent drives and where it reports: fixed for the whole suite. */
export interface AgentSetup {
  root: string
  port: number
  askPort: number
  panelUrl: string
  caddyAdminUrl: string
  stateDir: string
  storageDir: string
  httpsPort: number
  httpPort: number
  pebbleDirectory: string
  pebbleTrustBundle: string
}

/** Who the agent runs as: the panel's node, its secret, and the hostname its own vhost serves (if any). */
export interface AgentIdentity {
  nodeId: string
  secret: string
  agentHostname?: string
}

const SYSTEM_NODE = process.env.SYSTEM_NODE ?? '/usr/bin/node'

/** The agent process of the suite. */
export class AgentProcess {
  private child: ChildProcess | null = null
  private log = ''
  private identity: AgentIdentity | null = null

  constructor(private readonly setup: AgentSetup) {}

  get url(): string {
    return `http://127.0.0.1:${this.setup.port}`
  }

  /** The agent's recent output, for failure messages. */
  get output(): string {
    return this.log
  }

  /** Stops any running agent, then starts one as `identity`; resolves once it serves. */
  async start(identity: AgentIdentity): Promise<void> {
    await this.stop()
    this.identity = identity
    const s = this.setup
    const bundle = join(s.root, 'node-agent/dist/agent.mjs')
    if (!existsSync(bundle)) throw new Error(`no agent bundle at ${bundle}: run npm run build:agent`)
    const version = spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout
    if (!(Number(version?.split('.')[0]) >= 20)) {
      throw new Error(
        `the agent needs a system Node 20 or later at ${SYSTEM_NODE} (found ${version?.trim() || 'none'}): apt-get install nodejs, or set SYSTEM_NODE`,
      )
    }
    const flags = {
      listen: `127.0.0.1:${s.port}`,
      'ask-listen': `127.0.0.1:${s.askPort}`,
      'panel-url': s.panelUrl,
      'node-id': identity.nodeId,
      'caddy-admin': s.caddyAdminUrl,
      'state-dir': s.stateDir,
      'storage-dir': s.storageDir,
      'https-listen': `127.0.0.1:${s.httpsPort}`,
      'http-listen': `127.0.0.1:${s.httpPort}`,
      'acme-pebble': s.pebbleDirectory,
      // Nothing may leave the machine: the Let's Encrypt issuer points at a closed local port.
      'acme-letsencrypt': 'https://127.0.0.1:9/directory',
      'pebble-ca-root': s.pebbleTrustBundle,
      'forward-host': '127.0.0.1',
      ...(identity.agentHostname
        ? { 'agent-hostname': identity.agentHostname, 'agent-issuer': 'pebble' }
        : {}),
    }
    const args = Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value])
    const child = spawn(SYSTEM_NODE, [bundle, ...args], {
      env: { PATH: process.env.PATH ?? '', AGENT_SECRET: identity.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child = child
    this.log = ''
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        this.log = (this.log + chunk).slice(-8000)
      })
    }
    for (let attempt = 0; attempt < 200 && child.exitCode === null; attempt++) {
      if (this.log.includes('contract v2 on')) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await this.stop()
    throw new Error(`the reference agent did not start:\n${this.log}`)
  }

  /** Starts the agent again as it last ran (its state directory kept). */
  async restart(): Promise<void> {
    if (!this.identity) throw new Error('the agent never started')
    await this.start(this.identity)
  }

  /** Kills the agent at once (SIGKILL: nothing is saved on the way out) and resolves once it has exited. */
  async kill(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child)
  }

  /** Stops the agent (SIGTERM, SIGKILL after 5 s) and resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child, 5000)
  }
}

import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { stopProcess } from './stop-process'

// The reference node agent as a real process (`node node-agent/main.ts`), restarted whenever a test file
// enrolls its node: the node id and secret are start flags, and the panel makes the node id.

/** What the agent drives and where it reports: fixed for the whole suite. */
export interface AgentSetup {
  root: string
  port: number
  askPort: number
  panelUrl: string
  caddyAdminUrl: string
  storageDir: string
  httpsPort: number
  httpPort: number
  pebbleDirectory: string
  pebbleTrustBundle: string
}

/** The agent process of the suite; `start` (re)starts it as the given node. */
export class AgentProcess {
  private child: ChildProcess | null = null
  private log = ''

  constructor(private readonly setup: AgentSetup) {}

  get url(): string {
    return `http://127.0.0.1:${this.setup.port}`
  }

  /** The agent's recent output, for failure messages. */
  get output(): string {
    return this.log
  }

  /** Stops any running agent, then starts one as `nodeId` with `secret`; resolves once it listens. */
  async start(nodeId: string, secret: string): Promise<void> {
    await this.stop()
    const s = this.setup
    const flags = {
      listen: `127.0.0.1:${s.port}`,
      'ask-listen': `127.0.0.1:${s.askPort}`,
      'panel-url': s.panelUrl,
      'node-id': nodeId,
      'caddy-admin': s.caddyAdminUrl,
      'storage-dir': s.storageDir,
      'https-listen': `127.0.0.1:${s.httpsPort}`,
      'http-listen': `127.0.0.1:${s.httpPort}`,
      'acme-pebble': s.pebbleDirectory,
      // Nothing may leave the machine: the Let's Encrypt issuer points at a closed local port.
      'acme-letsencrypt': 'https://127.0.0.1:9/directory',
      'pebble-ca-root': s.pebbleTrustBundle,
      'forward-host': '127.0.0.1',
    }
    const args = Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value])
    const child = spawn(process.execPath, [join(s.root, 'node-agent/main.ts'), ...args], {
      env: { ...process.env, AGENT_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child = child
    this.log = ''
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        this.log = (this.log + chunk).slice(-8000)
      })
    }
    for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
      if (this.log.includes('contract v1 on')) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await this.stop()
    throw new Error(`the reference agent did not start:\n${this.log}`)
  }

  /** Stops the agent (SIGTERM, SIGKILL after 5 s) and resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child, 5000)
  }
}

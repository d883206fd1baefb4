import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stopProcess } from './stop-process'

// Real pdns_server processes for the peers suite, run by Node (vitest's globalSetup), never by workerd.

const SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql'
const APT_LINE =
  'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pdns-server pdns-backend-sqlite3 pdns-recursor dnsutils sqlite3 caddy pebble openssl dnsdist nodejs'

/** The address of one real box, as the tests see it. */
export interface PeerBox {
  apiUrl: string
  apiKey: string
  dnsPort: number
}

function onPath(command: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin']
  return dirs.some((dir) => dir && existsSync(join(dir, command)))
}

/** Fails loudly, with the install line, when a tool the suite needs is missing: the suite never skips. */
export function assertToolsInstalled(): void {
  const tools = [
    'pdns_server',
    'pdnsutil',
    'pdns_recursor',
    'rec_control',
    'sqlite3',
    'dig',
    'caddy',
    'pebble',
    'openssl',
    'dnsdist',
  ]
  const missing = tools.filter((tool) => !onPath(tool))
  if (!existsSync(SCHEMA)) missing.push(SCHEMA)
  // The agent bundle runs on the system's Node, as on a node (agent-process.ts checks its version).
  if (!existsSync(process.env.SYSTEM_NODE ?? '/usr/bin/node')) missing.push('the system Node (/usr/bin/node)')
  if (missing.length > 0) {
    throw new Error(`test:peers needs ${missing.join(', ')}; install them with:\n  ${APT_LINE}`)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One pdns_server with a gsqlite3 (DNSSEC-capable) backend, its API and DNS on 127.0.0.1. */
export class PowerDnsProcess {
  private child: ChildProcess | null = null
  readonly apiKey: string
  readonly dir: string

  constructor(
    root: string,
    readonly index: number,
    readonly apiPort: number,
    readonly dnsPort: number,
  ) {
    this.apiKey = `peers-key-${index}-${Math.random().toString(36).slice(2)}`
    this.dir = join(root, `box${index}`)
    mkdirSync(join(this.dir, 'run'), { recursive: true })
    const database = join(this.dir, 'pdns.sqlite3')
    writeFileSync(
      join(this.dir, 'pdns.conf'),
      [
        'launch=gsqlite3',
        `gsqlite3-database=${database}`,
        'gsqlite3-dnssec=yes',
        'api=yes',
        `api-key=${this.apiKey}`,
        'webserver=yes',
        'webserver-address=127.0.0.1',
        `webserver-port=${apiPort}`,
        'webserver-allow-from=127.0.0.0/8',
        'local-address=127.0.0.1',
        `local-port=${dnsPort}`,
        'setuid=',
        'setgid=',
        `socket-dir=${join(this.dir, 'run')}`,
        'guardian=no',
        'security-poll-suffix=',
        'loglevel=4',
        '',
      ].join('\n'),
    )
    const schema = spawnSync('sqlite3', [database], { input: readFileSync(SCHEMA) })
    if (schema.status !== 0) throw new Error(`sqlite3 could not create ${database}: ${schema.stderr}`)
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`
  }

  get box(): PeerBox {
    return { apiUrl: this.apiUrl, apiKey: this.apiKey, dnsPort: this.dnsPort }
  }

  private log(): string {
    const file = join(this.dir, 'pdns.log')
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-15).join('\n') : ''
  }

  /** Starts the server and resolves once its API answers with the key. */
  async start(): Promise<void> {
    if (this.child) return
    const log = openSync(join(this.dir, 'pdns.log'), 'a')
    const child = spawn('pdns_server', [`--config-dir=${this.dir}`, '--daemon=no'], {
      stdio: ['ignore', log, log],
    })
    closeSync(log)
    this.child = child
    let exited = false
    child.once('exit', () => {
      exited = true
    })
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline) {
      if (exited) {
        this.child = null
        throw new Error(`pdns_server box ${this.index} exited while starting:\n${this.log()}`)
      }
      try {
        const response = await fetch(`${this.apiUrl}/api/v1/servers/localhost`, {
          headers: { 'x-api-key': this.apiKey },
        })
        if (response.ok) return
      } catch {}
      await sleep(100)
    }
    await this.stop()
    throw new Error(
      `pdns_server box ${this.index} did not answer on ${this.apiUrl} within 15 s:\n${this.log()}`,
    )
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    await stopProcess(child, 5000)
  }

  /** `dig @127.0.0.1 -p <port> <name> <type> +short`, one line per record. */
  dig(name: string, type: string): string[] {
    const result = spawnSync(
      'dig',
      [`@127.0.0.1`, '-p', String(this.dnsPort), name, type, '+short', '+time=2', '+tries=1'],
      { encoding: 'utf8' },
    )
    if (result.status !== 0)
      throw new Error(`dig failed (${result.status}): ${result.stdout}${result.stderr}`)
    return result.stdout.split('\n').filter((line) => line.trim() !== '')
  }
}

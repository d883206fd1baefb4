import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePorts } from '../../node-agent/testing/harness.ts'

// `wrangler dev` for the UI tests, like test/bench/run.mjs: the real migrations applied to a scratch
// --persist-to directory, every var a developer's .dev.vars may hold overridden by --var, its own process group
// so that teardown stops workerd too.

const root = path.join(import.meta.dirname, '../..')
const wrangler = path.join(root, 'node_modules/.bin/wrangler')
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }

export interface WranglerDevOptions {
  /** The scratch directory for D1 and the Durable Objects (removed by the caller). */
  persistTo: string
  /** The built pages (`vite build` output) served as the Worker's static assets. */
  assets: string
  vars: Record<string, string>
}

/** Runs `wrangler d1 <command> DB <options>` on the scratch D1 in `persistTo`; rejects with its output when it fails. */
async function localD1(persistTo: string, command: string[], options: string[], what: string): Promise<void> {
  const child = spawn(wrangler, ['d1', ...command, 'DB', ...options, '--local', '--persist-to', persistTo], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (chunk: Buffer) => {
    output += chunk.toString()
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`${what} failed:\n${output}`)
}

/**
 * Applies migrations/ to the scratch D1 in `persistTo`, leaving what `wrangler d1 migrations apply DB --local
 * --persist-to` leaves (test/node/scratch-migrations.test.ts compares the two): wrangler's d1_migrations table, then
 * each migration with its row in one batch, in order. Wrangler starts a local runtime per migration (~36 workerd
 * starts, 30 s on an idle 2-core machine); here one runtime applies them all, in a few seconds.
 */
export async function applyMigrations(persistTo: string): Promise<void> {
  // Imported here: wrangler's and the plugin's bundles take seconds to load, and most importers never migrate.
  const [{ readD1Migrations }, { getPlatformProxy, unstable_readConfig }] = await Promise.all([
    import('@cloudflare/vitest-plugin'),
    import('wrangler'),
  ])
  const { d1_databases, compatibility_date } = unstable_readConfig({
    config: path.join(root, 'wrangler.toml'),
  })
  const database = d1_databases.find((d1: { binding: string }) => d1.binding === 'DB')
  if (!database) throw new Error('wrangler.toml has no D1 database bound as DB')
  // Only the database: the full config would warn that this runtime exports none of the Durable Objects.
  const config = mkdtempSync(path.join(tmpdir(), 'panel-migrations-'))
  const configPath = path.join(config, 'wrangler.json')
  writeFileSync(
    configPath,
    JSON.stringify({ name: 'migrations', compatibility_date, d1_databases: [database] }),
  )
  const migrations = await readD1Migrations(path.join(root, 'migrations'))
  // wrangler dev --persist-to X keeps D1 under X/v3, where this runtime's D1 (the same database id) writes.
  const proxy = await getPlatformProxy<{ DB: D1Database }>({
    configPath,
    persist: { path: path.join(persistTo, 'v3') },
    remoteBindings: false,
  })
  try {
    const db = proxy.env.DB
    // wrangler's own statements (getCreateMigrationsTableQuery, buildMigrationQuery in wrangler-dist/cli.js).
    await db
      .prepare(`CREATE TABLE IF NOT EXISTS "d1_migrations"(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`)
      .run()
    for (const { name, queries } of migrations) {
      const row = db.prepare(`INSERT INTO "d1_migrations" (name)\nvalues ('${name.replace(/'/g, "''")}');`)
      await db.batch([...queries.map((query) => db.prepare(query)), row])
    }
  } finally {
    await proxy.dispose()
    rmSync(config, { recursive: true, force: true })
  }
}

/** Runs the SQL file `file` on the scratch D1 in `persistTo` (a running `wrangler dev` sees its rows). */
export function executeSqlFile(persistTo: string, file: string): Promise<void> {
  return localD1(persistTo, ['execute'], ['--file', file, '--yes'], `executing ${file}`)
}

/** A running `wrangler dev`: its URL and a stop that kills its whole process group. */
export class WranglerDev {
  private output = ''

  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
  }

  /** Starts it on a free port, PANEL_ORIGIN its own URL, and resolves once /healthz answers (60 s at most). */
  static async start(options: WranglerDevOptions): Promise<WranglerDev> {
    const [port = 0, inspectorPort = 0] = await freePorts(2)
    const url = `http://127.0.0.1:${port}`
    const vars = Object.entries({ ...options.vars, PANEL_ORIGIN: url }).flatMap(([name, value]) => [
      '--var',
      `${name}:${value}`,
    ])
    const args = [
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
    ]
    args.push('--persist-to', options.persistTo, '--assets', options.assets, '--log-level', 'warn', ...vars)
    // GET /__scheduled?cron=… runs that cron's tasks (the tests run the minute cron when a page shows its work).
    args.push('--test-scheduled')
    const child = spawn(wrangler, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    const dev = new WranglerDev(url, child)
    try {
      await dev.waitUntilUp()
    } catch (error) {
      await dev.stop()
      throw error
    }
    return dev
  }

  private async waitUntilUp(): Promise<void> {
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`wrangler dev exited:\n${this.output}`)
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    throw new Error(`wrangler dev did not answer /healthz within 60 s:\n${this.output}`)
  }

  /** SIGTERM to the process group (wrangler and workerd), SIGKILL after 5 s; resolves once wrangler exited. */
  async stop(): Promise<void> {
    const { pid } = this.child
    if (pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()))
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-pid, name)
      } catch {}
    }
    signal('SIGTERM')
    const timer = setTimeout(() => signal('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }
}

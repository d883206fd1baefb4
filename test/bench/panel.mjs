// The benches' panel: `wrangler dev` on a scratch database (migrations applied, then `seed` run on it before the
// Worker starts), its bootstrap admin, an RPC helper, and a stop that also runs when the process exits.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'

export const root = path.resolve(import.meta.dirname, '../..')
export const wrangler = path.join(root, 'node_modules/.bin/wrangler')
export const admin = { email: 'bench@localhost', password: 'bench-password-123' }

/**
 * Where the benches keep their scratch state (the local D1 and the Durable Objects' SQLite files): RAM where the
 * machine has /dev/shm, else the temporary directory; BENCH_STATE_DIR overrides. On a disk, every durable write
 * waits for this machine's flush to the disk (measured by the bench's Durable Object floor), which is neither the
 * Worker's work nor what a write costs on Cloudflare, where storage is replicated over the network.
 */
export const stateDir = process.env.BENCH_STATE_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir())

/** The `wrangler dev` flags that set the bench panel's secrets and vars. */
export const devVars = [
  `SECRETS_KEY:${Buffer.alloc(32, 7).toString('base64url')}`,
  `BOOTSTRAP_ADMIN_EMAIL:${admin.email}`,
  `BOOTSTRAP_ADMIN_PASSWORD:${admin.password}`,
  // No network here: a resolver that refuses at once keeps status's advisory lookup from waiting.
  'DOH_RESOLVER_URL:http://127.0.0.1:9/dns-query',
  'ENVIRONMENT:development',
].flatMap((v) => ['--var', v])

const assetRouter = process.env.BENCH_ASSET_ROUTER === '1'

/** How the panel was run, for the benches' reports. */
export const panelShape = assetRouter
  ? "behind wrangler's emulated static-assets router (BENCH_ASSET_ROUTER=1)"
  : "without wrangler's emulated static-assets router, as /api/* runs on Cloudflare (BENCH_ASSET_ROUTER=1 adds it)"

/**
 * The configuration the benches run the panel with: wrangler.toml without its [assets] table, unless
 * BENCH_ASSET_ROUTER=1. With the table, `wrangler dev` puts two Workers of its own (an RPC proxy, then the static
 * assets router) in front of every request, in the same workerd process as the panel; on Cloudflare that routing
 * is done outside the Worker and /api/* reaches it directly (run_worker_first). Measured on the bench's bare
 * floor Worker, the two hops cost every request about 120 µs of workerd CPU and make each Durable Object call
 * about 120 µs dearer still (docs/performance.md), which is wrangler's emulation, not the panel. The file is
 * written beside wrangler.toml (so its relative paths hold) and removed when the process exits.
 */
function benchConfig() {
  if (assetRouter) return []
  const original = readFileSync(path.join(root, 'wrangler.toml'), 'utf8')
  const withoutAssets = original.replace(/^\[assets\]\n(?:[^[\n].*\n|\n)*/m, '')
  if (withoutAssets === original) throw new Error('wrangler.toml has no [assets] table to leave out')
  const file = path.join(root, `.wrangler-bench-${process.pid}.toml`)
  writeFileSync(file, withoutAssets)
  process.on('exit', () => rmSync(file, { force: true }))
  return ['--config', file]
}

/**
 * Starts the panel on `port` and answers once /healthz does; `onLine` gets each line wrangler dev prints (with
 * the Worker's console.log lines, which `--log-level warn` leaves out).
 */
export async function startBenchPanel({ port, name, seed = () => {}, args = [], onLine }) {
  const base = `http://127.0.0.1:${port}`
  const persist = mkdtempSync(path.join(stateDir, `panel-${name}-`))
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }
  const migrate = spawnSync(
    wrangler,
    ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    {
      cwd: root,
      env,
      stdio: 'ignore',
    },
  )
  if (migrate.status !== 0) throw new Error('applying migrations failed')
  seed({ wrangler, root, persist, env })
  const { dev, stop } = launchDev({
    cwd: root,
    port,
    persist,
    env,
    args: [...benchConfig(), ...args, ...devVars],
    onLine,
  })
  // A bench killed by a timeout or ^C must not leave `wrangler dev` (detached) holding the port.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130))

  async function rpc(procedure, input, headers = {}) {
    const res = await fetch(`${base}/api/rpc/${procedure}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, ...headers },
      body: JSON.stringify(input),
    })
    if (!res.ok) throw new Error(`${procedure}: ${res.status} ${await res.text()}`)
    return { body: await res.json(), headers: res.headers }
  }

  try {
    await untilOk(`${base}/healthz`)
  } catch (error) {
    stop()
    throw error
  }
  return { base, dev, rpc, stop }
}

/**
 * `wrangler dev` (detached, in its own process group) for the Worker in `cwd` on 127.0.0.1:`port` with its state in
 * `persist`; `stop` ends it and removes the state, and runs when this process exits.
 */
export function launchDev({ cwd, port, persist, env, args = [], onLine }) {
  const logLevel = onLine ? 'log' : 'warn'
  const dev = spawn(
    wrangler,
    ['dev', '--ip', '127.0.0.1', '--port', port, '--persist-to', persist, '--log-level', logLevel, ...args],
    { cwd, env, stdio: ['ignore', onLine ? 'pipe' : 'ignore', onLine ? 'pipe' : 'ignore'], detached: true },
  )
  if (onLine)
    for (const output of [dev.stdout, dev.stderr]) createInterface({ input: output }).on('line', onLine)
  const stop = () => {
    try {
      process.kill(-dev.pid, 'SIGTERM')
    } catch {}
    rmSync(persist, { recursive: true, force: true })
  }
  process.on('exit', stop)
  return { dev, stop }
}

/** Resolves once `url` answers 2xx; fails after 60 s. */
export async function untilOk(url) {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`wrangler dev did not answer ${url} within 60 s`)
}

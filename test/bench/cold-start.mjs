// npm run bench:cold-start: how fast a fresh panel answers. Each round launches `wrangler dev` on an empty state
// directory (no migrations: /healthz reads nothing) and times the launch to wrangler's "Ready on" line, the first
// /healthz answered 200 (from the launch, and from "Ready" alone), then warm /healthz calls for comparison. Then
// `wrangler check startup` profiles the Worker's own startup (parsing and running the bundle's top level), the
// part of a cold start on Cloudflare that the bundle decides. Prints the median of COLD_START_ROUNDS (default 3).
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { devVars, root, wrangler } from './panel.mjs'

const rounds = Number(process.env.COLD_START_ROUNDS ?? 3)
const port = process.env.BENCH_PORT ?? '8798'
const base = `http://127.0.0.1:${port}`
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }
const WARM_CALLS = 20

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** Resolves once wrangler dev prints its "Ready on" line; fails when it exits first or takes over 120 s. */
function readyLine(dev) {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(
      () => reject(new Error(`wrangler dev printed no "Ready on" in 120 s:\n${output}`)),
      120_000,
    )
    dev.stdout.on('data', (chunk) => {
      output += chunk
      if (/Ready on http/.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    })
    dev.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`wrangler dev exited (${code}) before it was ready:\n${output}`))
    })
  })
}

/** GET /healthz until it answers (a refused connection is retried after 10 ms); the moment the 200 arrived. */
async function firstOk() {
  for (;;) {
    try {
      const res = await fetch(`${base}/healthz`)
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`)
      return performance.now()
    } catch (error) {
      if (error.cause?.code !== 'ECONNREFUSED') throw error
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
}

async function warmCall() {
  const started = performance.now()
  const res = await fetch(`${base}/healthz`)
  await res.arrayBuffer()
  return performance.now() - started
}

/** One fresh `wrangler dev`: launch → Ready, launch → first 200, Ready → first 200 and warm, in ms. */
async function devRound() {
  const persist = mkdtempSync(path.join(tmpdir(), 'panel-cold-start-'))
  const launched = performance.now()
  const dev = spawn(
    wrangler,
    ['dev', '--ip', '127.0.0.1', '--port', port, '--persist-to', persist, ...devVars],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'ignore'], detached: true },
  )
  const exited = once(dev, 'exit')
  try {
    await readyLine(dev)
    const ready = performance.now()
    const answered = await firstOk()
    const warm = []
    for (let i = 0; i < WARM_CALLS; i++) warm.push(await warmCall())
    return {
      ready: ready - launched,
      firstOk: answered - launched,
      firstRequest: answered - ready,
      warmRequest: median(warm),
    }
  } finally {
    process.kill(-dev.pid, 'SIGTERM')
    await exited
    rmSync(persist, { recursive: true, force: true })
  }
}

/** The Worker's startup CPU time from `wrangler check startup`'s profile (sampled time that was not idle), in ms. */
function startupRound() {
  const dir = mkdtempSync(path.join(tmpdir(), 'panel-startup-'))
  const profile = path.join(dir, 'startup.cpuprofile')
  try {
    const check = spawnSync(wrangler, ['check', 'startup', '--outfile', profile], {
      cwd: root,
      env,
      encoding: 'utf8',
    })
    if (check.status !== 0) throw new Error(`wrangler check startup failed:\n${check.stdout}${check.stderr}`)
    const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(profile, 'utf8'))
    const idle = new Set(
      nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id),
    )
    const active = timeDeltas.reduce((sum, delta, i) => (idle.has(samples[i]) ? sum : sum + delta), 0)
    return active / 1000
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const dev = []
for (let i = 0; i < rounds; i++) dev.push(await devRound())
const startup = []
for (let i = 0; i < rounds; i++) startup.push(startupRound())

const row = (label, values) =>
  console.log(
    `  ${label.padEnd(44)} ${median(values).toFixed(0).padStart(5)} ms  (${values.map((v) => v.toFixed(0)).join(', ')})`,
  )
console.log(`cold start, median of ${rounds} rounds (each round in brackets):`)
row(
  'wrangler dev launched → "Ready on"',
  dev.map((r) => r.ready),
)
row(
  'wrangler dev launched → first /healthz 200',
  dev.map((r) => r.firstOk),
)
row(
  'first request after "Ready on"',
  dev.map((r) => r.firstRequest),
)
row(
  `warm request (median of ${WARM_CALLS})`,
  dev.map((r) => r.warmRequest),
)
row('Worker startup CPU (wrangler check startup)', startup)

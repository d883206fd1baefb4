// The bench's Durable Object floor: `wrangler dev` on the bare Worker in floor/ (no framework, no D1), measured the
// way run.mjs measures the panel. Its no-op, an empty Durable Object call and a one-row write give what one durable
// write costs this machine in milliseconds of the bottleneck, whatever the panel does around it.
import { mkdtempSync } from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'
import { median, pairedSlices } from './paired.mjs'
import { launchDev, stateDir, untilOk } from './panel.mjs'

const paths = [
  { name: 'bare no-op', path: '/noop' },
  { name: 'bare Durable Object call, nothing stored', path: '/do-call' },
  { name: 'bare Durable Object call storing one row (a ledger ping)', path: '/do-write' },
]

/** Three rounds of each floor call read against the bare no-op (paired.mjs); the median round per call. */
export async function measureFloor({ port, duration, connections }) {
  const base = `http://127.0.0.1:${port}`
  const persist = mkdtempSync(path.join(stateDir, 'bench-floor-'))
  const { stop } = launchDev({
    cwd: path.join(import.meta.dirname, 'floor'),
    port,
    persist,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  })
  try {
    await untilOk(`${base}/noop`)
    const run = (target, seconds) =>
      new Promise((resolve, reject) =>
        autocannon({ url: `${base}${target.path}`, connections, duration: seconds }, (err, result) =>
          err ? reject(err) : resolve(result),
        ),
      )
    for (const target of paths) await run(target, 3)
    const [noop, ...calls] = paths
    const rounds = calls.map(() => [])
    for (let round = 0; round < 3; round++) {
      for (const [i, target] of calls.entries()) {
        const result = await pairedSlices(run, noop, target, duration)
        if (result.failures > 0) throw new Error(`${target.name}: failed requests`)
        rounds[i].push(result)
      }
    }
    return [
      { name: noop.name, rps: median(rounds.flat().map((result) => result.noopRps)), ratio: 1 },
      ...calls.map((target, i) => ({
        name: target.name,
        rps: median(rounds[i].map((result) => result.rps)),
        ratio: median(rounds[i].map((result) => result.ratio)),
      })),
    ]
  } finally {
    stop()
  }
}

/**
 * The best ratio to the panel's no-op that a path making one durable write can reach here: the panel's no-op time
 * plus what the write adds in the bare Worker (each in milliseconds of the bottleneck per request).
 */
export function ceilingWithOneWrite(floor, panelNoopRps) {
  const [noop, , write] = floor
  const noopMs = 1000 / noop.rps
  const writeMs = noopMs / write.ratio - noopMs
  return { writeMs, ratio: 1000 / (1000 / panelNoopRps + writeMs) / panelNoopRps }
}

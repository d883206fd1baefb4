// npm run bench:scale: are N probes at 60 s each checked within their interval + 10 s? Seeds N probe rows straight
// into the scratch D1 (SQL), starts `wrangler dev` with the check stubbed (PROBE_CHECK_BENCH, see CHECK_STUB: a
// probe.checks pack logs when its checks were done), fires the real minute cron at each wall-clock minute and lets
// the real queue consumers move the probe.scan shards and the probe.checks packs. BENCH_PROBES (default 100000)
// and BENCH_MINUTES (default 3) size it; BENCH_CHECK_STUB (log, monitor) says where the stub starts;
// BENCH_WARMUP_MINUTES (default 0) crons run first and not counted (each monitor's first contact, see below).
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { defaultConfig, defaultNotify } from './monitoring.mjs'
import { startBenchPanel } from './panel.mjs'

const PROBES = Number(process.env.BENCH_PROBES ?? 100_000)
const MINUTES = Number(process.env.BENCH_MINUTES ?? 3)
// A monitor's first result is its first contact (its SQLite file made, a state change written to D1 at once); on
// Cloudflare probes are created over time, so a steady state has none. Warm-up crons run them and are not counted.
const WARMUP = Number(process.env.BENCH_WARMUP_MINUTES ?? 0)
// `log` (default): stubbed from the monitor on (the scan, the queue, the packs' D1 read); `monitor`: only the check
// is stubbed, each probe's monitor gets a made-up `up` result (its Durable Object, maintenance read and D1 flush).
const CHECK_STUB = process.env.BENCH_CHECK_STUB ?? 'log'
const MINUTE = 60_000
const INTERVAL = 60_000
const LATE_AFTER = INTERVAL + 10_000
// Migrating, seeding and starting wrangler dev take this long at most (168 s measured at 10,000 probes with the
// 2-core machine's load average at 16); the probes fall due after it. Slots due before the panel answered are not
// counted (they could not be on time).
const STARTUP = Number(process.env.BENCH_STARTUP_SECONDS ?? 240) * 1000

const seededAt = Date.now()
const firstDue = seededAt + STARTUP
/** Probe i falls due at firstDue + i × 60 s / N: spread over the minute, as probes created over time are. */
const dueOf = (i) => firstDue + Math.floor((i * INTERVAL) / PROBES)

function seed({ wrangler, root, persist, env }) {
  // monitor_version = updated_at: every monitor counts as configured, so the minute's monitor sync stays idle.
  const sql = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${PROBES - 1})
    INSERT INTO probes (id, name, type, target_kind, target, config, notify_config, state, enabled,
      consecutive_failures, next_check_at, monitor_version, created_at, updated_at)
    SELECT printf('scale-%06d', i), 'scale ' || i, 'http', 'external', 'https://scale.example.com/',
      '${defaultConfig}', '${defaultNotify}', 'up', 1, 0, ${firstDue} + (i * ${INTERVAL}) / ${PROBES}, ${seededAt}, ${seededAt}, ${seededAt} FROM n;`
  const file = path.join(persist, 'seed-scale.sql')
  writeFileSync(file, sql)
  const seeded = spawnSync(
    wrangler,
    ['d1', 'execute', 'DB', '--local', '--persist-to', persist, '--file', file],
    {
      cwd: root,
      env,
      stdio: 'ignore',
    },
  )
  if (seeded.status !== 0) throw new Error('seeding the probes failed')
}

const ran = new Map() // `${probeId}@${scheduledAt}` -> ran at (ms)
const flushes = [] // when a monitor wrote D1 (one batch each)
let duplicates = 0
const scans = new Map() // scanAt -> { due, shards, rowsRead, queued }
function onLine(line) {
  const flush = line.match(/bench monitor flush (\d+)/)
  if (flush) {
    flushes.push(Number(flush[1]))
    return
  }
  // `bench probe.checks <ran at> <probeId>@<scheduledAt> …`: one line per pack (one per single probe.check).
  const check = line.match(/bench probe\.checks? (\d+) (.+)/)
  if (check) {
    for (const key of check[2].trim().split(' ')) {
      if (ran.has(key)) duplicates++
      else ran.set(key, Number(check[1]))
    }
    return
  }
  const cron = line.match(/probe scan of (\d+): (\d+) due, (\d+) shards queued, (\d+) D1 rows read/)
  if (cron) {
    const scan = scans.get(cron[1]) ?? { due: 0, shards: 0, rowsRead: 0, queued: 0 }
    scans.set(cron[1], {
      ...scan,
      due: Number(cron[2]),
      shards: Number(cron[3]),
      rowsRead: scan.rowsRead + Number(cron[4]),
    })
    return
  }
  const shard = line.match(/probe scan shard of (\d+): (\d+) checks queued, (\d+) D1 rows read/)
  if (shard) {
    const scan = scans.get(shard[1]) ?? { due: 0, shards: 0, rowsRead: 0, queued: 0 }
    scans.set(shard[1], {
      ...scan,
      queued: scan.queued + Number(shard[2]),
      rowsRead: scan.rowsRead + Number(shard[3]),
    })
  }
}

const sleepUntil = (at) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())))

const { base, stop } = await startBenchPanel({
  port: process.env.BENCH_PORT ?? '8798',
  name: 'scale',
  seed,
  args: ['--test-scheduled', '--var', `PROBE_CHECK_BENCH:${CHECK_STUB}`],
  onLine,
})
const ready = Date.now()
if (ready > firstDue)
  console.warn(`wrangler dev took ${ready - seededAt} ms to start: slots due before are not counted`)

// The minute cron at each wall-clock minute from the first after the probes fall due, as Cloudflare fires it.
const firstFired = Math.ceil(Math.max(firstDue, ready) / MINUTE) * MINUTE
const firstCron = firstFired + WARMUP * MINUTE
const loads = []
for (let m = -WARMUP; m < MINUTES; m++) {
  const at = firstCron + m * MINUTE
  await sleepUntil(at)
  const res = await fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`)
  if (!res.ok) throw new Error(`scheduled: ${res.status}`)
  loads.push(loadavg()[0])
}
const lastCron = firstCron + (MINUTES - 1) * MINUTE
// Every slot the crons found due must have run by its due time + 70 s; wait that long after the last cron.
await sleepUntil(lastCron + LATE_AFTER + 5_000)
stop()

// The slots due by the last cron: probe i's slots dueOf(i) + k minutes up to it.
// Counted: slots due once the panel answered, and after the warm-up (the first counted cron queues those due
// since the last warm-up cron).
const countFrom = WARMUP > 0 ? firstCron - MINUTE + 1 : ready
let due = 0
const notRun = []
for (let i = 0; i < PROBES; i++) {
  for (let at = dueOf(i); at <= lastCron; at += INTERVAL) {
    if (at < countFrom) continue
    due++
    const key = `scale-${String(i).padStart(6, '0')}@${at}`
    if (!ran.has(key) && notRun.length < 5) notRun.push(key)
  }
}
let late = 0
let maxLateness = 0
const lateness = []
const countedRuns = []
for (const [key, at] of ran) {
  const scheduledAt = Number(key.slice(key.lastIndexOf('@') + 1))
  if (scheduledAt > lastCron || scheduledAt < countFrom) continue
  const delay = at - scheduledAt
  countedRuns.push(at)
  lateness.push(delay)
  if (delay > LATE_AFTER) late++
  maxLateness = Math.max(maxLateness, delay)
}
lateness.sort((a, b) => a - b)
// Checks a second of the counted slots: first to last check, and in the busiest 10 s.
const runTimes = countedRuns.sort((a, b) => a - b)
const span = ((runTimes.at(-1) ?? 0) - (runTimes[0] ?? 0)) / 1000
let busiest = 0
for (let i = 0, j = 0; i < runTimes.length; i++) {
  while (runTimes[i] - runTimes[j] > 10_000) j++
  busiest = Math.max(busiest, i - j + 1)
}
const counted = lateness.length
// The monitors' D1 batches in each minute from the first cron fired: a probe's first result changes its state
// (a fresh monitor is paused) and is written at once; after that a monitor writes D1 when an hour closes.
const flushesPerMinute = Array.from({ length: WARMUP + MINUTES + 1 }, (_, m) => {
  const from = firstFired + m * MINUTE
  return flushes.filter((at) => at >= from && at < from + MINUTE).length
})
const rows = [...scans.values()].map((s) => s.rowsRead)
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`

console.log(
  `\nprobe scan at scale: ${MINUTES} minute crons counted from ${new Date(firstCron).toISOString()}` +
    (WARMUP > 0 ? ` after ${WARMUP} warm-up crons from ${new Date(firstFired).toISOString()}` : ''),
)
console.table({
  probes: PROBES,
  'check stubbed from': CHECK_STUB === 'monitor' ? 'the check (monitors run)' : 'the monitor call',
  'checks due': due,
  'checks run': counted,
  'not run by due + 70 s': due - counted,
  'late checks (> 70 s)': late,
  'max lateness': seconds(maxLateness),
  'p50 / p99 lateness': `${seconds(lateness[Math.floor(counted * 0.5)] ?? 0)} / ${seconds(lateness[Math.floor(counted * 0.99)] ?? 0)}`,
  'not run (first 5)': notRun.join(' '),
  'slots run twice': duplicates,
  'checks/s (first to last check)': span > 0 ? Math.round(runTimes.length / span) : 0,
  'checks/s (busiest 10 s)': Math.round(busiest / 10),
  'D1 rows read per scan': rows.join(', '),
  'monitor D1 batches per minute':
    CHECK_STUB === 'monitor' ? flushesPerMinute.join(', ') : '(monitors stubbed)',
  'shards per scan': [...scans.values()].map((s) => s.shards).join(', '),
  'load average (1 min) at each cron': loads.map((l) => l.toFixed(1)).join(', '),
})

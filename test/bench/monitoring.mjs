// The monitoring part of `npm run bench`: seeds the scratch database, adds the heartbeat and history paths to the
// measured targets, and afterwards checks that no ping was lost, times the minute scan over 10,000 probes and
// holds 1,000 open watch streams while reading the wrangler processes' memory.
import { execFileSync, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'

const HOUR = 3_600_000
const SCAN_PROBES = 10_000
const SCAN_DUE = 100
const HISTORY_PROBE = '00000000-0000-4000-8000-00000000b157'

const defaultConfig = JSON.stringify({
  failureThreshold: 3,
  recoveryThreshold: 1,
  flapWindowSeconds: 1800,
  flapThreshold: 5,
  intervalSeconds: 60,
  timeoutMs: 1000,
  method: 'GET',
  expectedStatus: { min: 200, max: 399 },
  followRedirects: false,
})
const defaultNotify = JSON.stringify({
  emails: [],
  webhookUrl: null,
  cooldownSeconds: 300,
  maxPerHour: 10,
  repeatWhileDownMinutes: 0,
})

/** SQL seeding 10,000 scanned probes (1% due) and one probe with 2,160 hourly rollups, before wrangler dev starts. */
export function seedMonitoring({ wrangler, root, persist, env }) {
  const now = Date.now()
  const probeRow = (id, name, nextCheckAt) =>
    `('${id}', '${name}', 'http', 'external', NULL, 'http://127.0.0.1:9/', '${defaultConfig}', '${defaultNotify}', NULL, NULL, 'paused', 1, 0, NULL, NULL, NULL, ${nextCheckAt}, NULL, ${now}, ${now})`
  const statements = []
  for (let start = 0; start < SCAN_PROBES; start += 500) {
    const rows = []
    for (let i = start; i < Math.min(start + 500, SCAN_PROBES); i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
      rows.push(probeRow(id, `scan ${i}`, i < SCAN_DUE ? now - 1000 : now + 24 * HOUR))
    }
    statements.push(`INSERT INTO probes VALUES ${rows.join(',\n')};`)
  }
  statements.push(`INSERT INTO probes VALUES ${probeRow(HISTORY_PROBE, 'history', 'NULL')};`)
  const firstHour = Math.floor(now / HOUR) * HOUR - 2159 * HOUR
  statements.push(`WITH RECURSIVE h(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM h WHERE n < 2159)
    INSERT INTO probe_rollups SELECT '${HISTORY_PROBE}', 'hourly', ${firstHour} + n * ${HOUR}, 60 - (n % 3 = 0), n % 3 = 0, 0, 60 * 42, 60, 120 FROM h;`)
  const file = path.join(persist, 'seed-monitoring.sql')
  writeFileSync(file, statements.join('\n'))
  const seeded = spawnSync(
    wrangler,
    ['d1', 'execute', 'DB', '--local', '--persist-to', persist, '--file', file],
    {
      cwd: root,
      env,
      stdio: 'ignore',
    },
  )
  if (seeded.status !== 0) throw new Error('seeding the monitoring tables failed')
}

/** Creates heartbeat probes through the API; returns the measured targets and what the later checks need. */
export async function monitoringTargets({ rpc, bearer }) {
  const heartbeat = async (name) => {
    const { body } = await rpc(
      'probes.create',
      {
        name,
        type: 'heartbeat',
        targetKind: 'external',
        target: name,
        config: { intervalSeconds: 3600, graceSeconds: 600 },
      },
      bearer,
    )
    return { id: body.id, token: body.heartbeatToken }
  }
  const single = await heartbeat('bench single')
  const spread = []
  for (let i = 0; i < 1000; i++) spread.push(await heartbeat(`bench spread ${i}`))
  let next = 0
  const targets = [
    { name: 'heartbeat ping, 1 probe', path: `/api/heartbeat/${single.token}` },
    {
      name: 'heartbeat ping, spread over 1,000 probes',
      path: `/api/heartbeat/${spread[0].token}`,
      request: {
        requests: [
          {
            setupRequest(request) {
              request.path = `/api/heartbeat/${spread[next++ % spread.length].token}`
              return request
            },
          },
        ],
      },
    },
    {
      name: 'probes.history (2,160 hourly rows)',
      path: '/api/rpc/probes.history',
      request: {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ id: HISTORY_PROBE, granularity: 'hourly', hours: 2160 }),
      },
    },
  ]
  return { targets, heartbeat }
}

/** Pings fresh probes a fixed number of times and compares the 200s with the pings the monitors recorded. */
export async function countLostPings({ base, rpc, bearer, heartbeat }) {
  const probes = []
  for (let i = 0; i < 50; i++) probes.push(await heartbeat(`bench ledger ${i}`))
  let next = 0
  const result = await new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${base}/api/heartbeat/${probes[0].token}`,
        connections: 10,
        amount: 5000,
        requests: [
          {
            setupRequest(request) {
              request.path = `/api/heartbeat/${probes[next++ % probes.length].token}`
              return request
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  )
  // The monitors flush their rollup counts at most a minute after the last ping.
  await new Promise((r) => setTimeout(r, 70_000))
  let recorded = 0
  for (const probe of probes) {
    const { body } = await rpc('probes.history', { id: probe.id, granularity: 'hourly', hours: 2 }, bearer)
    recorded += body.reduce((sum, row) => sum + row.checks, 0)
  }
  return { ok: result['2xx'], failed: result.errors + result.non2xx, recorded }
}

/** Runs the minute scan once over the seeded 10,000 probes and returns its wall time. */
export async function timeScan({ base }) {
  const started = performance.now()
  const res = await fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`)
  if (!res.ok) throw new Error(`scheduled: ${res.status}`)
  return performance.now() - started
}

function treeRss(rootPid) {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,comm=']).toString().trim().split('\n')
  const rows = table
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, rss, comm]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      rss: Number(rss),
      comm,
    }))
  const inTree = new Set([rootPid])
  for (let grew = true; grew; ) {
    grew = false
    for (const row of rows)
      if (inTree.has(row.ppid) && !inTree.has(row.pid)) {
        inTree.add(row.pid)
        grew = true
      }
  }
  return (
    rows.filter((row) => inTree.has(row.pid) && row.comm.includes('workerd')).reduce((s, r) => s + r.rss, 0) /
    1024
  )
}

/** Opens `count` watch streams, waits for each first frame, and reports the workerd processes' memory. */
export async function holdWatchStreams({ base, bearer, devPid, count = 1000 }) {
  const before = treeRss(devPid)
  const controllers = []
  let opened = 0
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async () => {
        const controller = new AbortController()
        controllers.push(controller)
        const res = await fetch(`${base}/api/v1/probes/watch?intervalMs=1000&targetKind=node`, {
          headers: { authorization: bearer.authorization, accept: 'text/event-stream' },
          signal: controller.signal,
        })
        if (!res.ok) throw new Error(`watch: ${res.status}`)
        const reader = res.body.getReader()
        await reader.read()
        opened++
      }),
    )
  }
  await new Promise((r) => setTimeout(r, 2000))
  const after = treeRss(devPid)
  for (const controller of controllers) controller.abort()
  return { opened, rssBeforeMb: before, rssAfterMb: after }
}

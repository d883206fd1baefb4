// npm run bench: starts `wrangler dev` on a scratch database, seeds it through the API, then drives each hot
// path with autocannon and reports requests/s and p99 latency, each as a ratio to the no-op route in the same run.
import autocannon from 'autocannon'
import { ceilingWithOneWrite, measureFloor } from './floor.mjs'
import {
  countLostPings,
  holdWatchStreams,
  LEDGER_FLUSH_S,
  monitoringTargets,
  seedMonitoring,
  timeScan,
} from './monitoring.mjs'
import { median, pairedSlices, SLICES } from './paired.mjs'
import { admin, panelShape, startBenchPanel, stateDir } from './panel.mjs'
import { profileWhile, summarise, workerdInspector } from './profile.mjs'

const duration = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const { base, dev, rpc, stop } = await startBenchPanel({
  port: process.env.BENCH_PORT ?? '8797',
  name: 'bench',
  seed: seedMonitoring,
  // Profiled runs read function names, so their bundle is not minified.
  args: ['--test-scheduled', ...(process.env.BENCH_PROFILE ? ['--no-minify'] : [])],
})

function run(target, seconds = duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${base}${target.path}`, connections, duration: seconds, ...target.request },
      (err, result) => (err ? reject(err) : resolve(result)),
    )
  })
}

const login = await rpc('auth.login', admin)
const cookie = login.headers.get('set-cookie').split(';')[0]
const { body: created } = await rpc(
  'tokens.create',
  {
    name: 'bench',
    permissions: [
      'fleet:view',
      'fleet:manage',
      'custom-hostnames:manage',
      'custom-hostnames:view',
      'domains:view',
      'domains:manage',
      'routes:manage',
      'probes:view',
      'probes:manage',
    ],
  },
  { cookie },
)
const bearer = { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' }
for (let i = 0; i < 100; i++) {
  await rpc(
    'nodes.create',
    { name: `node-${i}`, agentUrl: 'https://agent.test', agentSecret: 'bench-agent-secret-0001' },
    bearer,
  )
}

// The custom-hostnames seam: a site, one registered hostname, and enough site tokens that the per-token
// 600-an-hour probe window never answers 429 during the run (each request takes the next token in turn).
const { body: node } = await rpc(
  'nodes.create',
  {
    name: 'edge',
    agentUrl: 'https://agent.test',
    agentSecret: 'bench-agent-secret-0001',
    dnsTarget: 'edge.example.net',
  },
  bearer,
)
const { body: instance } = await rpc(
  'instances.create',
  { nodeId: node.id, name: 'app', address: '10.0.0.5' },
  bearer,
)
const { body: site } = await rpc('sites.create', { instanceId: instance.id, name: 'shop' }, bearer)
// Twenty raw routes on the site for routes.listForSite. Their reconciles fail against the unreachable agent in
// the background and stop after a few retries.
for (let i = 0; i < 20; i++) {
  await rpc(
    'routes.createRaw',
    { instanceId: instance.id, siteId: site.id, listenPort: 10000 + i, targetPort: 3000 + i },
    bearer,
  )
}
const siteTokens = []
for (let i = 0; i < 120; i++) {
  const { body: minted } = await rpc('sites.tokens.create', { siteId: site.id, name: `bench ${i}` }, bearer)
  siteTokens.push(minted.token)
}
const hostname = 'shop.customer-example.com'
await rpc(
  'customHostnames.register',
  { siteId: site.id, hostname },
  { authorization: `Bearer ${siteTokens[0]}` },
)
// One manual domain for domains.get; its DNS verify waits in the background on the refusing resolver.
const { body: domain } = await rpc(
  'domains.attach',
  { siteId: site.id, hostname: 'www.bench-domain-example.com', driver: 'manual' },
  bearer,
)
let nextToken = 0
const withSiteToken = (body) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  requests: [
    {
      setupRequest(request) {
        request.headers.authorization = `Bearer ${siteTokens[nextToken++ % siteTokens.length]}`
        return request
      },
    },
  ],
})

const targets = [
  { name: 'no-op (GET /healthz)', path: '/healthz' },
  {
    name: 'auth.me (bearer, 1 D1 read)',
    path: '/api/rpc/auth.me',
    request: { method: 'POST', headers: bearer, body: '{}' },
  },
  {
    name: 'customHostnames.probe (site token)',
    path: '/api/v1/customHostnames/probe',
    request: withSiteToken({ siteId: site.id, hostname: 'app.other-customer.com' }),
  },
  {
    name: 'customHostnames.status (site token)',
    path: '/api/v1/customHostnames/status',
    request: withSiteToken({ siteId: site.id, hostname }),
  },
  {
    name: 'routes.listForSite (20 routes)',
    path: '/api/rpc/routes.listForSite',
    request: { method: 'POST', headers: bearer, body: JSON.stringify({ siteId: site.id }) },
  },
  {
    name: 'domains.get',
    path: '/api/rpc/domains.get',
    request: { method: 'POST', headers: bearer, body: JSON.stringify({ id: domain.domainId }) },
  },
  {
    name: 'nodes.list (100 nodes)',
    path: '/api/rpc/nodes.list',
    request: { method: 'POST', headers: bearer, body: '{}' },
  },
]
const monitoring = await monitoringTargets({ base, rpc, bearer })
targets.push(...monitoring.targets)
// A public status page over ten up heartbeats: edge-cached, so all but one request in 20 s skip D1.
const { body: benchProbes } = await rpc('probes.list', { limit: 10, search: 'bench spread' }, bearer)
await rpc(
  'statusPages.create',
  {
    slug: 'bench',
    title: 'Bench status',
    public: true,
    groups: [{ name: 'Jobs', probes: benchProbes.map((p) => ({ probeId: p.id, displayName: p.name })) }],
  },
  bearer,
)
targets.push({ name: 'public status JSON (GET /api/v1/status/bench, cached)', path: '/api/v1/status/bench' })
if ((await fetch(`${base}/api/v1/meta/changelog`)).ok) {
  targets.push({ name: 'feed (GET /api/v1/meta/changelog)', path: '/api/v1/meta/changelog' })
  targets.push({ name: 'version (GET /api/v1/meta/version)', path: '/api/v1/meta/version' })
}
targets.push(...monitoring.pingTargets)

// BENCH_ONLY (a regular expression) keeps the no-op baseline and the paths whose names it matches.
if (process.env.BENCH_ONLY) {
  const only = new RegExp(process.env.BENCH_ONLY)
  targets.splice(0, targets.length, ...targets.filter((t, i) => i === 0 || only.test(t.name)))
}

// BENCH_PROFILE (a regular expression): instead of the rounds, each matching path runs once while workerd's
// inspector samples the local D1 (a Durable Object of its own); its busy share and busiest functions are printed.
if (process.env.BENCH_PROFILE) {
  const only = new RegExp(process.env.BENCH_PROFILE)
  const inspector = await workerdInspector(dev.pid)
  // Only the local D1's isolate: `wrangler dev` holds the Worker's own inspector session for its DevTools proxy.
  const ids = ['d1:db']
  for (const target of targets.filter((t) => only.test(t.name))) {
    await run(target, 3)
    let result
    const profiles = await profileWhile(inspector, ids, async () => {
      result = await run(target)
    })
    console.log(`\n## ${target.name}: ${result.requests.average.toFixed(0)} req/s while sampled`)
    for (const [i, profile] of profiles.entries()) console.log(`${ids[i]}: ${summarise(profile)}`)
  }
  stop()
  process.exit(0)
}

// The heartbeat rows come last in a round; their ledger flush (on the same cores) is let pass before the next
// round, so that it lands on no other path's measurement.
async function awaitLedgerFlush(pingsStartedAt) {
  if (pingsStartedAt === null) return
  const flushedAt = pingsStartedAt + (LEDGER_FLUSH_S + 15) * 1000
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, flushedAt - Date.now())))
}

// Warm every path, then three interleaved rounds, each path read against the no-op right before each of its
// slices (paired.mjs); the median round per path is reported.
const [noopTarget, ...paths] = targets
let warmPingsStartedAt = null
for (const target of targets) {
  if (target.countedByLedger && warmPingsStartedAt === null) warmPingsStartedAt = Date.now()
  await run(target, 3)
}
await awaitLedgerFlush(warmPingsStartedAt)
const rounds = paths.map(() => [])
for (let r = 0; r < 3; r++) {
  let pingsStartedAt = null
  for (const [i, target] of paths.entries()) {
    if (target.countedByLedger && pingsStartedAt === null) pingsStartedAt = Date.now()
    const result = await pairedSlices(run, noopTarget, target, duration)
    if (result.failures > 0)
      console.warn(`${target.name}: ${result.failures} failed requests in round ${r + 1}`)
    rounds[i].push(result)
  }
  if (r < 2) await awaitLedgerFlush(pingsStartedAt)
}
const noopReadings = rounds.flat().map((result) => result.noopRps)
const noop = { name: noopTarget.name, rps: median(noopReadings) }
const rows = paths.map((target, i) => ({
  name: target.name,
  rps: median(rounds[i].map((result) => result.rps)),
  p99: median(rounds[i].map((result) => result.p99)),
  ratio: median(rounds[i].map((result) => result.ratio)),
}))
console.log(
  `\n${connections} connections, median of 3 rounds of ${duration} s per path (${SLICES} slices, each after a no-op slice as long), wrangler dev on 127.0.0.1 ${panelShape}, scratch state in ${stateDir}\n`,
)
console.log('| path | req/s | p99 ms | req/s ÷ no-op |')
console.log('|---|---|---|---|')
console.log(`| ${noop.name} | ${noop.rps.toFixed(0)} | — | 1.00 |`)
for (const row of rows) {
  console.log(`| ${row.name} | ${row.rps.toFixed(0)} | ${row.p99} | ${row.ratio.toFixed(2)} |`)
}
console.log(
  `no-op readings (mean of a path's ${SLICES} no-op slices): ${Math.min(...noopReadings).toFixed(0)}–${Math.max(...noopReadings).toFixed(0)} req/s`,
)

if (!process.env.BENCH_ONLY || new RegExp(process.env.BENCH_ONLY).test('monitoring')) {
  const ledger = await countLostPings({ base, rpc, bearer, heartbeat: monitoring.heartbeat })
  console.log(
    `\nheartbeat ledger: ${ledger.ok} answered 200, ${ledger.failed} failed, ${ledger.recorded} recorded (lost: ${ledger.ok - ledger.recorded})`,
  )
  const scanMs = await timeScan({ base })
  // Its D1 rows read are asserted by test/probes/scan.test.ts (about 6 per due probe, none for the rest).
  console.log(
    `minute scan over 10,000 probes, 100 due: ${scanMs.toFixed(0)} ms (the cron invocation, to its end)`,
  )
  // A person holds at most 10 streams (whatever credential opens them) and the panel 500 in all: 50 operators,
  // each signed in, hold 10 each.
  const watchers = []
  for (let i = 0; i < 50; i++) {
    const operator = { email: `watcher-${i}@localhost`, password: 'bench-password-123' }
    await rpc('users.create', { ...operator, role: 'operator' }, { cookie })
    const signedIn = await rpc('auth.login', operator)
    watchers.push({ cookie: signedIn.headers.get('set-cookie').split(';')[0] })
  }
  const watch = await holdWatchStreams({ base, callers: watchers, perCaller: 10, devPid: dev.pid })
  console.log(
    `${watch.opened} open watch streams: workerd RSS ${watch.rssBeforeMb.toFixed(0)} → ${watch.rssAfterMb.toFixed(0)} MB (${((watch.rssAfterMb - watch.rssBeforeMb) / watch.opened).toFixed(2)} MB per stream)`,
  )
}
stop()

// What one durable Durable Object write costs this machine, measured on a bare Worker: the ceiling of any path
// that must make one (the heartbeat ping is answered 200 only once its ledger shard stored it).
if (targets.some((target) => target.countedByLedger)) {
  const floor = await measureFloor({ port: process.env.BENCH_FLOOR_PORT ?? '8796', duration, connections })
  console.log('\nDurable Object floor: a bare Worker (no framework, no D1), measured the same way\n')
  console.log('| path | req/s | req/s ÷ bare no-op |')
  console.log('|---|---|---|')
  for (const row of floor) console.log(`| ${row.name} | ${row.rps.toFixed(0)} | ${row.ratio.toFixed(2)} |`)
  const { writeMs, ratio } = ceilingWithOneWrite(floor, noop.rps)
  const spread = rows.find((row) => row.name.startsWith('heartbeat ping, spread'))
  console.log(
    `\none durable write adds ${writeMs.toFixed(2)} ms per request here, so a panel path making one reaches at most ${ratio.toFixed(2)} of the panel's no-op${spread ? ` (heartbeat spread: ${spread.ratio.toFixed(2)})` : ''}`,
  )
}
process.exit(0)

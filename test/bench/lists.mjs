// npm run bench:lists: list latency at 10,000 rows. Starts `wrangler dev` on a scratch database holding 10,000
// custom hostnames of one site, 10,000 probes and 10,000 audit entries, then times pages of 100 (the first page,
// a page deep in the list through its cursor, and a search) one request at a time, against the no-op route.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { admin, panelShape, startBenchPanel } from './panel.mjs'

const ROWS = 10_000
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200)
const SITE = '00000000-0000-4000-8000-0000000051e0'

// Many rows share each creation millisecond (100 per ms), as a bulk import would leave them.
function seed({ wrangler, root, persist, env }) {
  const now = Date.now()
  const config = JSON.stringify({
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
  const notify = JSON.stringify({
    emails: [],
    webhookUrl: null,
    cooldownSeconds: 300,
    maxPerHour: 10,
    repeatWhileDownMinutes: 0,
  })
  const n = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS - 1})`
  const statements = [
    `INSERT INTO nodes (id, name, roles, agent_url, agent_secret_sealed, created_at, updated_at)
     VALUES ('00000000-0000-4000-8000-00000000c0de', 'edge', '["host"]', 'https://agent.test', 'sealed', ${now}, ${now});`,
    `INSERT INTO instances (id, node_id, name, address, created_at, updated_at)
     VALUES ('00000000-0000-4000-8000-0000000001a5', '00000000-0000-4000-8000-00000000c0de', 'app', '10.0.0.5', ${now}, ${now});`,
    `INSERT INTO sites (id, instance_id, name, created_at, updated_at)
     VALUES ('${SITE}', '00000000-0000-4000-8000-0000000001a5', 'shop', ${now}, ${now});`,
    `${n} INSERT INTO custom_hostnames (id, site_id, hostname, tier, state, reason, zone_name, records, generation,
       attempts, dns_resolves, created_at, updated_at)
     SELECT printf('00000000-0000-4000-8001-%012d', i), '${SITE}', printf('shop%05d.customer%03d.example', i, i % 997),
       'external', 'instructions', 'external-zone', printf('customer%03d.example', i % 997), '[]', 1, 0, 0,
       ${now} - i / 100, ${now} FROM n;`,
    `${n} INSERT INTO probes (id, name, type, target_kind, target, config, notify_config, state, enabled,
       consecutive_failures, created_at, updated_at)
     SELECT printf('00000000-0000-4000-8002-%012d', i), 'probe ' || i, 'http', 'external',
       printf('https://status%05d.example/health', i), '${config}', '${notify}', 'paused', 0, 0, ${now} - i / 100, ${now}
     FROM n;`,
    `${n} INSERT INTO audit_log (action, principal_kind, principal_id, target_id, outcome, request_id, created_at)
     SELECT CASE i % 3 WHEN 0 THEN 'probe.create' WHEN 1 THEN 'domain.attach' ELSE 'route.remove' END, 'session',
       'bench-user', printf('target-%05d', i), 'success', printf('request-%05d', i), ${now} - i / 100 FROM n;`,
  ]
  const file = path.join(persist, 'seed-lists.sql')
  writeFileSync(file, statements.join('\n'))
  const done = spawnSync(
    wrangler,
    ['d1', 'execute', 'DB', '--file', file, '--local', '--persist-to', persist],
    {
      cwd: root,
      env,
      stdio: 'ignore',
    },
  )
  if (done.status !== 0) throw new Error('seeding the lists failed')
}

const { base, rpc, stop } = await startBenchPanel({
  port: process.env.BENCH_PORT ?? '8798',
  name: 'bench-lists',
  seed,
})
const login = await rpc('auth.login', admin)
const cookie = login.headers.get('set-cookie').split(';')[0]
const { body: token } = await rpc(
  'tokens.create',
  { name: 'bench', permissions: ['custom-hostnames:view', 'probes:view', 'audit:view'] },
  { cookie },
)
const bearer = { authorization: `Bearer ${token.token}` }

/** The id of the 5,000th row: a cursor deep in the list. */
async function deepCursor(name, input, rowsOf, idOf) {
  let cursor
  for (let page = 0; page < 10; page++) {
    const { body } = await rpc(name, { ...input, limit: 500, ...(cursor ? { cursor } : {}) }, bearer)
    const rows = rowsOf(body)
    cursor = idOf(rows[rows.length - 1])
  }
  return cursor
}

async function time(request) {
  const samples = []
  for (let i = 0; i < SAMPLES + 10; i++) {
    const started = performance.now()
    const res = await request()
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`answered ${res.status}`)
    if (i >= 10) samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  return { median: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99)] }
}

const post = (name, input) => () =>
  fetch(`${base}/api/rpc/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer },
    body: JSON.stringify(input),
  })

const hostnamesOf = (body) => body.hostnames
const entriesOf = (body) => body.entries
const asRows = (body) => body
const byId = (row) => String(row.id)
const deep = {
  hostnames: await deepCursor('customHostnames.list', { siteId: SITE }, hostnamesOf, byId),
  probes: await deepCursor('probes.list', {}, asRows, byId),
  audit: await deepCursor('audit.list', {}, entriesOf, byId),
}
const cases = [
  ['no-op (GET /healthz)', () => fetch(`${base}/healthz`)],
  ['customHostnames.list, first page', post('customHostnames.list', { siteId: SITE, limit: 100 })],
  [
    'customHostnames.list, page after row 5,000',
    post('customHostnames.list', { siteId: SITE, limit: 100, cursor: deep.hostnames }),
  ],
  [
    'customHostnames.list, search "customer042"',
    post('customHostnames.list', { siteId: SITE, search: 'customer042' }),
  ],
  ['probes.list, first page', post('probes.list', { limit: 100 })],
  ['probes.list, page after row 5,000', post('probes.list', { limit: 100, cursor: deep.probes })],
  ['probes.list, search "status0424"', post('probes.list', { search: 'status0424' })],
  ['audit.list, first page', post('audit.list', { limit: 100 })],
  ['audit.list, page after row 5,000', post('audit.list', { limit: 100, cursor: deep.audit })],
  ['audit.list, search "target-0424"', post('audit.list', { search: 'target-0424' })],
]
const results = []
for (const [name, request] of cases) results.push({ name, ...(await time(request)) })
const noop = results[0]
console.log(
  `\n${ROWS.toLocaleString('en')} rows per list, ${SAMPLES} sequential requests per path, wrangler dev on 127.0.0.1 ${panelShape}\n`,
)
console.log('| path | median ms | p99 ms | median ÷ no-op |')
console.log('|---|---|---|---|')
for (const row of results) {
  console.log(
    `| ${row.name} | ${row.median.toFixed(1)} | ${row.p99.toFixed(1)} | ${(row.median / noop.median).toFixed(1)} |`,
  )
}
stop()
process.exit(0)

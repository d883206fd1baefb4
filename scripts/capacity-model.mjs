// The capacity model of docs/scale.md ("Capacity model"): from the per-unit costs of the design and Cloudflare's
// published prices and limits, what 1,000 / 10,000 / 100,000 / 1,000,000 custom hostnames and as many 60 s probes
// cost per minute and per month, and the limit that binds first. `node scripts/capacity-model.mjs` prints the
// table; every input is named below with where it comes from, so each figure can be checked by hand.

// One 60 s probe check, counted from the statements on its path (docs/scale.md lists them):
const PER_CHECK = {
  // a 1,000-probe probe.scan shard and a 25-check probe.checks pack
  queueMessages: 1 / 1000 + 1 / 25,
  // whatever the count: the scan's five probe.scan.tick messages a minute
  fixedQueueMessages: 5,
  // the scan's count and claim (7 per due probe, measured by bench:probes), the pack's read of the probe row, and
  // once an hour the monitor's flush (the probe row's update and two rollup upserts)
  d1RowsRead: 7 + 1 + 3 / 60,
  // the claim (the row and its due index), and once an hour the flush (the probe row, the hour, the day)
  d1RowsWritten: 2 + 3 / 60,
  // the flush is one D1 batch per probe per hour (and one per state change, rare)
  d1WriteBatches: 1 / 60,
  // the monitor's applyResult, and once an hour its alarm that flushes
  doRequests: 1 + 1 / 60,
  // the raw result kept in the monitor's SQLite and its delete after 7 days, the applied check ids (one row, kept
  // for deduplication with the oldest trimmed), the state (its lastCheckedAt moves), the maintenance windows the
  // pack handed over (one row, newer each minute), and once an hour the flush's marks, flush time and alarm time
  doRowsWritten: 2 + 1 + 1 + 1 + 3 / 60,
  // once an hour the flush reads the monitor's raw results (no index on time: an index entry would be one more
  // row written a check, at 1,000 times the price of a row read): today's and the unwritten, a scan of ~10,080
  doRowsRead: 10_080 / 60,
  // queue consumer invocations (10 messages a batch) and the minute cron
  workerInvocations: 1 / 250,
  // not measured on Cloudflare; the local pack path ran 1,700 checks/s on one workerd thread without monitors
  cpuMs: 2,
}
// The plan past the limits (docs/scale.md, "The plan past one database"): 256 scheduler-ledger objects own their probes'
// schedules (alarms, not a D1 claim a check) and results, as heartbeat pings already land on ledger shards: each
// flushes one row of its probes' results every 10 s; raw results and hourly rollups stay in the shards' SQLite; D1
// keeps the catalogue, state changes and daily rollups, written once an hour a probe.
const PLANNED_PER_CHECK = {
  ...PER_CHECK,
  queueMessages: 1 / 25,
  d1RowsRead: 2 / 60,
  d1RowsWritten: 2 / 60,
  d1WriteBatches: 256 / 100_000,
  // a pack hands its 25 results to their shards in one call each
  doRequests: 1 / 25,
  doRowsWritten: (256 * 6) / 100_000,
  doRowsRead: 0,
}
const PLANNED_PER_PROBE_D1_BYTES = 365 * 120

// What one probe keeps in D1: 90 days of hourly rollups (2,160 × ~120 B) and a year of daily ones. Its 7 days of
// raw results (10,080 at 60 s) are in its monitor's SQLite, ~60 B each without an index.
const PER_PROBE_D1_BYTES = 2_160 * 120 + 365 * 120
const PER_PROBE_DO_BYTES = 10_080 * 60
// What one custom hostname keeps in D1: its row, claim and route with their indexes (0.94 KB measured in SQLite
// for 100,000) and its audit entry.
const PER_HOSTNAME_D1_BYTES = 1_300
// A certificate renewal observed by the node (every ~60 days a hostname) updates its row: rows written a minute.
const RENEWAL_ROWS_WRITTEN_PER_HOSTNAME_MINUTE = 2 / (60 * 24 * 60)
const NODE_HOSTNAME_CAP = 100_000

// Cloudflare's published prices (Workers Paid): developers.cloudflare.com/workers/platform/pricing/,
// /queues/platform/pricing/, /durable-objects/platform/pricing/, /d1/platform/pricing/.
const PRICE = {
  base: 5,
  workerRequests: { included: 10e6, perMillion: 0.3 },
  cpuMs: { included: 30e6, perMillion: 0.02 },
  queueOps: { included: 1e6, perMillion: 0.4, perMessage: 3 },
  doRequests: { included: 1e6, perMillion: 0.15 },
  d1RowsRead: { included: 25e9, perMillion: 0.001 },
  d1RowsWritten: { included: 50e6, perMillion: 1 },
  d1StorageGb: { included: 5, perGbMonth: 0.75 },
  doRowsWritten: { included: 50e6, perMillion: 1 },
  doRowsRead: { included: 25e9, perMillion: 0.001 },
  doStorageGb: { included: 5, perGbMonth: 0.2 },
}
// Published limits: d1/platform/limits (10 GB a database, which cannot be raised; one query at a time, ~1,000 a
// second at 1 ms each), queues/platform/limits (5,000 messages a second a queue).
const LIMIT = { d1Gb: 10, d1WriteBatchesPerSecond: 1_000, queueMessagesPerSecond: 5_000 }

const MINUTES_PER_MONTH = 60 * 24 * 30

const overage = ({ included, perMillion }, monthly) => (Math.max(0, monthly - included) / 1e6) * perMillion

function model(n, perCheck = PER_CHECK, perProbeBytes = PER_PROBE_D1_BYTES) {
  const minute = {
    d1RowsRead: n * perCheck.d1RowsRead,
    d1RowsWritten: n * perCheck.d1RowsWritten + n * RENEWAL_ROWS_WRITTEN_PER_HOSTNAME_MINUTE,
    queueMessages: n * perCheck.queueMessages + (perCheck.fixedQueueMessages ?? 0),
    doRequests: n * perCheck.doRequests,
    doRowsWritten: n * perCheck.doRowsWritten,
    d1WriteBatches: n * perCheck.d1WriteBatches,
    doRowsRead: n * perCheck.doRowsRead,
  }
  const storageGb = (n * PER_HOSTNAME_D1_BYTES + n * perProbeBytes) / 1e9
  const doStorageGb = perCheck.doRowsRead > 0 ? (n * PER_PROBE_DO_BYTES) / 1e9 : 0
  const month = (value) => value * MINUTES_PER_MONTH
  const lines = {
    'D1 rows written': overage(PRICE.d1RowsWritten, month(minute.d1RowsWritten)),
    'DO rows written': overage(PRICE.doRowsWritten, month(minute.doRowsWritten)),
    'DO requests': overage(PRICE.doRequests, month(minute.doRequests)),
    'queue operations': overage(PRICE.queueOps, month(minute.queueMessages * PRICE.queueOps.perMessage)),
    'D1 rows read': overage(PRICE.d1RowsRead, month(minute.d1RowsRead)),
    'DO rows read': overage(PRICE.doRowsRead, month(minute.doRowsRead)),
    'DO storage': Math.max(0, doStorageGb - PRICE.doStorageGb.included) * PRICE.doStorageGb.perGbMonth,
    'D1 storage': Math.max(0, storageGb - PRICE.d1StorageGb.included) * PRICE.d1StorageGb.perGbMonth,
    'Worker requests and CPU':
      overage(PRICE.workerRequests, month(n * perCheck.workerInvocations)) +
      overage(PRICE.cpuMs, month(n * perCheck.cpuMs)),
  }
  const cost = PRICE.base + Object.values(lines).reduce((total, line) => total + line, 0)
  const load = {
    'D1 size (10 GB)': storageGb / LIMIT.d1Gb,
    'D1 writer': minute.d1WriteBatches / 60 / LIMIT.d1WriteBatchesPerSecond,
    'queue rate': minute.queueMessages / 60 / LIMIT.queueMessagesPerSecond,
  }
  const [binding, share] = Object.entries(load).sort((a, b) => b[1] - a[1])[0]
  const [dearest] = Object.entries(lines).sort((a, b) => b[1] - a[1])[0]
  return { minute, storageGb, cost, dearest, binding, share, nodes: Math.ceil(n / NODE_HOSTNAME_CAP) }
}

const fmt = (value) => Math.round(value).toLocaleString('en-US')
function table(title, perCheck, perProbeBytes) {
  console.log(`\n${title}\n`)
  console.log(
    '| hostnames and 60 s probes | nodes | D1 rows read / min | D1 rows written / min | D1 write batches / s | queue messages / min | DO requests / min | DO rows written / min | D1 storage | nearest limit (share used) | $ / month (dearest line) |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|---|')
  for (const n of [1_000, 10_000, 100_000, 1_000_000]) {
    const r = model(n, perCheck, perProbeBytes)
    const m = r.minute
    console.log(
      `| ${fmt(n)} | ${r.nodes} | ${fmt(m.d1RowsRead)} | ${fmt(m.d1RowsWritten)} | ${fmt(m.d1WriteBatches / 60)} | ${fmt(m.queueMessages)} | ${fmt(m.doRequests)} | ${fmt(m.doRowsWritten)} | ${r.storageGb.toFixed(1)} GB | ${r.binding}: ${Math.round(r.share * 100)} % | ${fmt(r.cost)} (${r.dearest}) |`,
    )
  }
}

table('Today', PER_CHECK, PER_PROBE_D1_BYTES)
table('The plan past one database', PLANNED_PER_CHECK, PLANNED_PER_PROBE_D1_BYTES)

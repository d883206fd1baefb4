// The capacity model of the README's "Scale" section: from the per-unit costs the tests measure and Cloudflare's
// published prices and limits, what 1,000 / 10,000 / 100,000 / 1,000,000 custom hostnames and 60 s probes cost per
// minute and per month, and the limit that binds first. `node scripts/capacity-model.mjs` prints the tables; every
// input is named below with where it comes from, so each figure can be checked by hand.

// Measured per unit (test/capacity-inputs.test.ts asserts each as an upper bound on the real path).
const PER_CHECK = {
  // A 60 s probe check: its share of the scan (one claim statement per 1,000 probes) and of its pack (one
  // probe.checks message and one D1 read per 25 checks), the monitor's call, and the monitor's flush a minute later.
  queueMessages: 1 / 25 + 1 / 1000,
  d1RowsRead: 8,
  d1RowsWritten: 9,
  d1WriteBatches: 1,
  doRequests: 1,
  doRowsWritten: 6,
  workerInvocations: 1 / 25,
  cpuMs: 1.5,
}
const PER_HOSTNAME = {
  // Steady state: no periodic work per hostname on the panel (the sweep reads only rows in flight); a renewal
  // observed by the node every ~60 days is one report row.
  renewalsPerMinute: 1 / (60 * 24 * 60),
  d1RowsWrittenPerRenewal: 3,
  storageBytes: 2_600,
}
const PER_PROBE_STORAGE_BYTES = 60 * 24 * 7 * 90 + 24 * 90 * 110
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
}
// Published limits: queues/platform/limits (5,000 messages/s per queue), d1/platform/limits (10 GB per database,
// one writer: ~1,000 queries/s at 1 ms each), durable-objects/platform/limits (1,000 requests/s per object).
const LIMIT = { queueMessagesPerSecond: 5_000, d1WriteBatchesPerSecond: 1_000, d1Gb: 10 }

const MINUTES_PER_MONTH = 60 * 24 * 30

function overage({ included, perMillion }, monthly) {
  return (Math.max(0, monthly - included) / 1e6) * perMillion
}

function row(n) {
  const checks = n
  const minute = {
    d1RowsRead: checks * PER_CHECK.d1RowsRead,
    d1RowsWritten:
      checks * PER_CHECK.d1RowsWritten + n * PER_HOSTNAME.renewalsPerMinute * PER_HOSTNAME.d1RowsWrittenPerRenewal,
    queueMessages: checks * PER_CHECK.queueMessages,
    doRequests: checks * PER_CHECK.doRequests,
    doRowsWritten: checks * PER_CHECK.doRowsWritten,
    d1WriteBatches: checks * PER_CHECK.d1WriteBatches,
  }
  const storageGb = (n * PER_HOSTNAME.storageBytes + n * PER_PROBE_STORAGE_BYTES) / 1e9
  const month = (value) => value * MINUTES_PER_MONTH
  const cost =
    PRICE.base +
    overage(PRICE.workerRequests, month(checks * PER_CHECK.workerInvocations)) +
    overage(PRICE.cpuMs, month(checks * PER_CHECK.cpuMs)) +
    overage(PRICE.queueOps, month(minute.queueMessages * PRICE.queueOps.perMessage)) +
    overage(PRICE.doRequests, month(minute.doRequests)) +
    overage(PRICE.d1RowsRead, month(minute.d1RowsRead)) +
    overage(PRICE.d1RowsWritten, month(minute.d1RowsWritten)) +
    overage(PRICE.doRowsWritten, month(minute.doRowsWritten)) +
    Math.max(0, storageGb - PRICE.d1StorageGb.included) * PRICE.d1StorageGb.perGbMonth
  const load = {
    'D1 writer': minute.d1WriteBatches / 60 / LIMIT.d1WriteBatchesPerSecond,
    'queue rate': minute.queueMessages / 60 / LIMIT.queueMessagesPerSecond,
    'D1 size': storageGb / LIMIT.d1Gb,
  }
  const [binding, share] = Object.entries(load).sort((a, b) => b[1] - a[1])[0]
  return { n, minute, storageGb, cost, binding, share, nodes: Math.ceil(n / NODE_HOSTNAME_CAP) }
}

const fmt = (value) => Math.round(value).toLocaleString('en-US')
console.log(
  '| hostnames and 60 s probes | nodes | D1 rows read / min | D1 rows written / min | queue messages / min | DO requests / min | DO rows written / min | D1 storage | binds first (share of its limit) | $ / month |',
)
console.log('|---|---|---|---|---|---|---|---|---|---|')
for (const n of [1_000, 10_000, 100_000, 1_000_000]) {
  const r = row(n)
  console.log(
    `| ${fmt(n)} | ${r.nodes} | ${fmt(r.minute.d1RowsRead)} | ${fmt(r.minute.d1RowsWritten)} | ${fmt(r.minute.queueMessages)} | ${fmt(r.minute.doRequests)} | ${fmt(r.minute.doRowsWritten)} | ${r.storageGb.toFixed(2)} GB | ${r.binding} (${Math.round(r.share * 100)} %) | ${fmt(r.cost)} |`,
  )
}

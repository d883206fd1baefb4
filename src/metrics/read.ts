// What one scrape reads: at most `limit` + 1 rows of each per-entity family (probes, domains, custom hostname
// certificates, nodes) within the scrape's shard of the id space, through each table's primary key, plus the
// failed jobs counted by kind and state (first shard only). Everything goes in one D1 batch.

/** A scrape's slice: shard `shard` of `shards` equal ranges of the ids' first four hex digits, `limit` rows each. */
export interface Slice {
  shard: number
  shards: number
  limit: number
}

/** The id range of a shard: [low, high), null meaning open on that side (so no id falls outside every shard). */
export function shardRange({ shard, shards }: Slice): { low: string | null; high: string | null } {
  const start = (i: number) =>
    Math.floor((i * 0x10000) / shards)
      .toString(16)
      .padStart(4, '0')
  return { low: shard === 0 ? null : start(shard), high: shard === shards - 1 ? null : start(shard + 1) }
}

export interface ProbeRow {
  id: string
  name: string
  type: string
  state: string
  last_checked_at: number | null
  last_detail: string | null
  latency_count: number | null
  latency_sum_ms: number | null
  latency_buckets: string | null
}

export interface DomainRow {
  id: string
  hostname: string
  cert_expires_at: number
}

export interface HostnameCertRow {
  owner_id: string
  node_id: string
  hostname: string
  not_after: number
}

export interface NodeRow {
  id: string
  name: string
  check_state: string | null
  last_seen_at: number | null
}

export interface JobCountRow {
  kind: string
  state: string
  n: number
}

export interface Scraped {
  probes: ProbeRow[]
  domains: DomainRow[]
  hostnameCerts: HostnameCertRow[]
  nodes: NodeRow[]
  jobs: JobCountRow[]
}

const DAY_MS = 86_400_000

/** The shard's bounds on `column`, for a WHERE clause (only the bounds it has, so the primary key serves it). */
function inShard(column: string, slice: Slice): { sql: string; binds: string[] } {
  const { low, high } = shardRange(slice)
  const parts = [...(low === null ? [] : [`${column} >= ?`]), ...(high === null ? [] : [`${column} < ?`])]
  return {
    sql: parts.length === 0 ? '1' : parts.join(' AND '),
    binds: [...(low === null ? [] : [low]), ...(high === null ? [] : [high])],
  }
}

const probes = (shard: string) => `SELECT p.id, p.name, p.type, p.state, p.last_checked_at,
    json_extract(p.last_result, '$.detail') AS last_detail,
    r.latency_count, r.latency_sum_ms, r.latency_buckets
  FROM probes p LEFT JOIN probe_rollups r
    ON r.probe_id = p.id AND r.granularity = 'daily' AND r.bucket_start = ?
  WHERE p.archived_at IS NULL AND ${shard} ORDER BY p.id LIMIT ?`

const domains = (shard: string) => `SELECT id, hostname, cert_expires_at FROM domains
  WHERE cert_expires_at IS NOT NULL AND ${shard} ORDER BY id LIMIT ?`

// Observations are kept per claim owner; the join keeps the custom hostnames' (a domain's has its own series).
const hostnameCerts = (shard: string) => `SELECT o.owner_id, o.node_id, o.hostname, o.not_after
  FROM certificate_observations o JOIN custom_hostnames c ON c.id = o.owner_id
  WHERE ${shard} ORDER BY o.owner_id, o.node_id LIMIT ?`

const nodes = (shard: string) => `SELECT n.id, n.name, h.check_state, h.last_seen_at
  FROM nodes n LEFT JOIN node_health h ON h.node_id = n.id
  WHERE ${shard} ORDER BY n.id LIMIT ?`

const JOBS = `SELECT kind, state, count(*) AS n FROM failed_jobs
  WHERE state IN ('retrying', 'dead', 'retried') GROUP BY kind, state ORDER BY kind, state`

/** The day's start (ms, UTC) whose daily rollup the latency histogram reads. */
export const dayStart = (now: number) => Math.floor(now / DAY_MS) * DAY_MS

/** Reads a scrape's rows in one batch; each list holds up to limit + 1 rows (the extra one says there is more). */
export async function readScrape(d1: D1Database, slice: Slice, now: number): Promise<Scraped> {
  const rows = slice.limit + 1
  const read = (query: (shard: string) => string, column: string, before: number[] = []) => {
    const shard = inShard(column, slice)
    return d1.prepare(query(shard.sql)).bind(...before, ...shard.binds, rows)
  }
  const statements = [
    read(probes, 'p.id', [dayStart(now)]),
    read(domains, 'id'),
    read(hostnameCerts, 'o.owner_id'),
    read(nodes, 'n.id'),
    ...(slice.shard === 0 ? [d1.prepare(JOBS)] : []),
  ]
  const [probeRows, domainRows, certRows, nodeRows, jobRows] = await d1.batch(statements)
  return {
    probes: (probeRows?.results ?? []) as ProbeRow[],
    domains: (domainRows?.results ?? []) as DomainRow[],
    hostnameCerts: (certRows?.results ?? []) as HostnameCertRow[],
    nodes: (nodeRows?.results ?? []) as NodeRow[],
    jobs: (jobRows?.results ?? []) as JobCountRow[],
  }
}

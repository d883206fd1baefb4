import { addLatency } from '../latency-buckets'
import type { CheckOutcome } from './api'
import { NO_PERCENTILES, type Percentiles, percentilesOf } from './percentiles'
import type { PendingRollup } from './store'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
/** Raw results are kept this long in the monitor (D1 keeps only what flushes and events carry). */
export const MONITOR_RAW_RETENTION_MS = 7 * DAY_MS
/** At most this many raw results per answer: the latest ones of the window. */
export const RAW_HISTORY_LIMIT = 1000

/** One raw result as the monitor keeps it. */
export interface StoredResult {
  at: number
  outcome: CheckOutcome
  latencyMs: number | null
  detail: string
  /**
   * Where it was measured: `edge` (the panel) or a node id; null for a heartbeat's results and for the one
   * judged result of a round over several locations.
   */
  location: string | null
}

/** A rollup bucket the monitor owes D1: increments not yet written, and its percentiles once it closed. */
export interface OwedRollup extends PendingRollup, Percentiles {
  /** The bucket ended by the flush's time: its percentiles are final and overwrite D1's. */
  closed: boolean
}

/** What the monitor owes D1's rollups at `now`, and the marks to keep once written. */
export interface OwedRollups {
  rollups: OwedRollup[]
  marks: RolledMarks
  /** When a bucket holding results closes next (the flush after that writes it); null when none will. */
  nextAt: number | null
}

/** Results with seq ≤ `seq` are counted in D1; hours before `hour` and days before `day` have their percentiles. */
interface RolledMarks {
  seq: number
  hour: number
  day: number
}

const NO_MARKS: RolledMarks = { seq: 0, hour: 0, day: 0 }

// No index on `at`: a raw insert is one row written (billed 1,000 times a row read), and the reads scan a
// week of one probe's rows (about 10,000 at 60 s) a few times an hour. `counted` is 0 for one location's share
// of a round over several locations: it is in the per-location history, the round's judged result in the counts.
const SCHEMA = `CREATE TABLE IF NOT EXISTS results (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL,
  outcome TEXT NOT NULL, latency_ms INTEGER, detail TEXT NOT NULL, location TEXT, counted INTEGER NOT NULL)`

const GRANULARITIES = [
  ['hourly', HOUR_MS],
  ['daily', DAY_MS],
] as const

type Row = Record<string, SqlStorageValue>
const num = (value: SqlStorageValue | undefined) => (typeof value === 'number' ? value : 0)
const numOrNull = (value: SqlStorageValue | undefined) => (typeof value === 'number' ? value : null)

/**
 * A ProbeMonitor's raw results, in its own SQLite for the raw retention: the source of its raw history, of the
 * rollup increments it writes to D1 when an hour closes (one batch an hour, not one a check) and of the exact
 * percentiles of each closed hour and day.
 */
export class ResultsStore {
  private ready = false

  constructor(private readonly storage: DurableObjectStorage) {}

  // Made on first use, so an object that never records a result keeps no table.
  private get sql(): SqlStorage {
    if (!this.ready) {
      this.storage.sql.exec(SCHEMA)
      this.ready = true
    }
    return this.storage.sql
  }

  private marks(): RolledMarks {
    return this.storage.kv.get<RolledMarks>('rolled') ?? NO_MARKS
  }

  /** Keeps a result (one row written). `counted` false for one location's verdict inside a judged round. */
  add(result: StoredResult, counted = true): void {
    this.sql.exec(
      'INSERT INTO results (at, outcome, latency_ms, detail, location, counted) VALUES (?, ?, ?, ?, ?, ?)',
      result.at,
      result.outcome,
      result.latencyMs,
      result.detail,
      result.location,
      counted ? 1 : 0,
    )
  }

  /**
   * The latest RAW_HISTORY_LIMIT results in (from, to], newest first: the checks (the judged result of a round),
   * or, with `location`, what that location measured.
   */
  raw(from: number, to: number, location: string | null): StoredResult[] {
    if (!this.hasTable()) return []
    const where = location === null ? 'counted = 1' : 'location = ?4'
    const rows = this.sql
      .exec<Row>(
        `SELECT at, outcome, latency_ms, detail, location FROM results WHERE at > ?1 AND at <= ?2 AND ${where}
         ORDER BY at DESC, seq DESC LIMIT ?3`,
        from,
        to,
        RAW_HISTORY_LIMIT,
        ...(location === null ? [] : [location]),
      )
      .toArray()
    return rows.map((row) => ({
      at: num(row.at),
      outcome: row.outcome as CheckOutcome,
      latencyMs: numOrNull(row.latency_ms),
      detail: typeof row.detail === 'string' ? row.detail : '',
      location: typeof row.location === 'string' ? row.location : null,
    }))
  }

  /**
   * What D1's rollups lack at `now`: each bucket's increments from the results not yet written, and for each
   * bucket closed since the last write (or touched by a late result) its exact percentiles. One read of the
   * table (today's results and those not yet written), the rest in memory.
   */
  owed(now: number): OwedRollups {
    const marks = this.marks()
    const hour = Math.floor(now / HOUR_MS) * HOUR_MS
    const day = Math.floor(now / DAY_MS) * DAY_MS
    const next = { seq: marks.seq, hour: Math.max(marks.hour, hour), day: Math.max(marks.day, day) }
    if (!this.hasTable()) return { rollups: [], marks: next, nextAt: null }
    const rows = this.sql
      .exec<Row>(
        'SELECT seq, at, outcome, latency_ms FROM results WHERE counted = 1 AND (seq > ? OR at >= ?)',
        marks.seq,
        marks.day,
      )
      .toArray()
    const rollups: OwedRollup[] = []
    for (const [granularity, size] of GRANULARITIES) {
      const open = granularity === 'hourly' ? hour : day
      const closedFrom = granularity === 'hourly' ? marks.hour : marks.day
      const buckets = new Map<number, OwedRollup>()
      const latencies = new Map<number, number[]>()
      for (const row of rows) {
        const at = num(row.at)
        const bucketStart = Math.floor(at / size) * size
        const latency = numOrNull(row.latency_ms)
        if (latency !== null) {
          const seen = latencies.get(bucketStart)
          if (seen) seen.push(latency)
          else latencies.set(bucketStart, [latency])
        }
        const unwritten = num(row.seq) > marks.seq
        if (!unwritten && (bucketStart < closedFrom || bucketStart >= open)) continue
        const bucket = buckets.get(bucketStart) ?? emptyBucket(granularity, bucketStart, bucketStart < open)
        buckets.set(bucketStart, bucket)
        if (unwritten) count(bucket, row.outcome as CheckOutcome, latency)
        next.seq = Math.max(next.seq, num(row.seq))
      }
      for (const bucket of buckets.values()) {
        if (bucket.closed) {
          // A late result's bucket may lie before today: its latencies are read on their own.
          const timed =
            bucket.bucketStart >= marks.day
              ? (latencies.get(bucket.bucketStart) ?? [])
              : this.latencies(bucket.bucketStart, size)
          Object.assign(bucket, percentilesOf(timed.sort((a, b) => a - b)))
        }
        rollups.push(bucket)
      }
    }
    rollups.sort((a, b) => a.bucketStart - b.bucketStart || a.granularity.localeCompare(b.granularity))
    return { rollups, marks: next, nextAt: nextClose(rows, next) }
  }

  /** D1 holds what `owed` answered: the marks move on, and once a day results past the raw retention go. */
  rolled(marks: RolledMarks, now: number): void {
    const before = this.marks()
    this.storage.kv.put('rolled', marks)
    if (marks.day === before.day) return
    // The newest row stays, so a rowid is never handed out again below the mark.
    this.sql.exec(
      'DELETE FROM results WHERE at < ? AND seq <= ? AND seq < (SELECT max(seq) FROM results)',
      now - MONITOR_RAW_RETENTION_MS,
      marks.seq,
    )
  }

  private latencies(bucketStart: number, size: number): number[] {
    return this.sql
      .exec<Row>(
        `SELECT latency_ms FROM results WHERE counted = 1 AND latency_ms IS NOT NULL AND at >= ? AND at < ?
         ORDER BY latency_ms`,
        bucketStart,
        bucketStart + size,
      )
      .toArray()
      .map((row) => num(row.latency_ms))
  }

  private hasTable(): boolean {
    if (this.ready) return true
    const found = this.storage.sql
      .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'results'")
      .toArray()
    if (found.length > 0) this.ready = true
    return this.ready
  }
}

/**
 * When the rows read last need the next flush: the end of the earliest hour (or day) holding a result whose
 * bucket is not closed in D1 yet. Later results bring it forward as they come (see ProbeMonitor.owePending).
 */
function nextClose(rows: Row[], marks: RolledMarks): number | null {
  let next: number | null = null
  for (const row of rows) {
    const at = num(row.at)
    const ends = [
      at >= marks.hour ? Math.floor(at / HOUR_MS) * HOUR_MS + HOUR_MS : null,
      at >= marks.day ? Math.floor(at / DAY_MS) * DAY_MS + DAY_MS : null,
    ]
    for (const end of ends) if (end !== null && (next === null || end < next)) next = end
  }
  return next
}

function count(bucket: OwedRollup, outcome: CheckOutcome, latency: number | null): void {
  if (outcome === 'up') bucket.up += 1
  else if (outcome === 'down') bucket.down += 1
  else bucket.degraded += 1
  if (latency === null) return
  bucket.latencySumMs += latency
  bucket.latencyCount += 1
  bucket.latencyMaxMs = Math.max(bucket.latencyMaxMs ?? latency, latency)
  bucket.latencyBuckets = addLatency(bucket.latencyBuckets, latency)
}

function emptyBucket(granularity: 'hourly' | 'daily', bucketStart: number, closed: boolean): OwedRollup {
  return {
    granularity,
    bucketStart,
    up: 0,
    down: 0,
    degraded: 0,
    latencySumMs: 0,
    latencyCount: 0,
    latencyMaxMs: null,
    latencyBuckets: null,
    closed,
    ...NO_PERCENTILES,
  }
}

/** How long after an hour closes the monitor writes it: spread by probe over 50 minutes, so D1 sees no burst. */
export const ROLLUP_SPREAD_MS = 50 * 60_000

/** This probe's place in the spread (FNV-1a of its id). */
export function rollupOffsetMs(probeId: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < probeId.length; i++) hash = Math.imul(hash ^ probeId.charCodeAt(i), 0x01000193)
  return ((hash >>> 0) % (ROLLUP_SPREAD_MS / 1000)) * 1000
}

/** When a result taken at `at` is next written to D1's rollups: after its hour closes, at the probe's offset. */
export function rollupDueAt(probeId: string, at: number): number {
  return Math.floor(at / HOUR_MS) * HOUR_MS + HOUR_MS + rollupOffsetMs(probeId)
}

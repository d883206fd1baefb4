import type { LastPing } from '../monitor/api'
import type { RawResult } from '../monitor/flush'
import { type PendingRollup, RAW_ROWS_PER_FLUSH } from '../monitor/store'
import { type LedgerEntry, pingDetail } from './ledger-api'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** One plain success ping the ledger recorded. */
export interface LedgerPing {
  at: number
  exitStatus: number | null
  body: string
}

/** What one probe owes D1 since the last flush: rollup counts, the first raw rows, and its latest ping. */
export interface ProbeCounts {
  rollups: PendingRollup[]
  raw: RawResult[]
  last: RawResult
}

/** One flush: every probe's counts, and the last ping row (by seq) they include. */
export interface LedgerBatch {
  upTo: number
  probes: Map<string, ProbeCounts>
}

interface Entry extends LedgerEntry {
  /** Kept as recorded; made a LastPing only when read (a ping is recorded far more often than read). */
  last: LedgerPing | null
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS entries (probe_id TEXT PRIMARY KEY, hash TEXT NOT NULL, active INTEGER NOT NULL,
    forward INTEGER NOT NULL, last_at INTEGER, last_exit INTEGER, last_body TEXT)`,
  // Every ping not yet in D1: the counts and the last pings are rebuilt from it when the object wakes.
  `CREATE TABLE IF NOT EXISTS pings (seq INTEGER PRIMARY KEY AUTOINCREMENT, probe_id TEXT NOT NULL,
    at INTEGER NOT NULL, exit_status INTEGER, body TEXT NOT NULL)`,
]

type Row = Record<string, SqlStorageValue>

const num = (value: SqlStorageValue | undefined) => (typeof value === 'number' ? value : null)
const text = (value: SqlStorageValue | undefined) => (typeof value === 'string' ? value : '')

function toLastPing(ping: LedgerPing): LastPing {
  return {
    at: new Date(ping.at).toISOString(),
    signal: 'success',
    exitStatus: ping.exitStatus,
    body: ping.body,
    durationMs: null,
  }
}

function emptyCounts(last: RawResult): ProbeCounts {
  return { rollups: [], raw: [], last }
}

function addPing(counts: ProbeCounts, result: RawResult): void {
  if (counts.raw.length < RAW_ROWS_PER_FLUSH) counts.raw.push(result)
  if (result.at >= counts.last.at) counts.last = result
  for (const [granularity, size] of [
    ['hourly', HOUR_MS],
    ['daily', DAY_MS],
  ] as const) {
    const bucketStart = Math.floor(result.at / size) * size
    const bucket = counts.rollups.find((r) => r.granularity === granularity && r.bucketStart === bucketStart)
    if (bucket) bucket.up += 1
    else
      counts.rollups.push({
        granularity,
        bucketStart,
        up: 1,
        down: 0,
        degraded: 0,
        latencySumMs: 0,
        latencyCount: 0,
        latencyMaxMs: null,
        latencyBuckets: null,
      })
  }
}

/** Puts a failed flush's counts back in front of what arrived meanwhile (raw rows keep the first ones). */
function mergeCounts(older: ProbeCounts, newer: ProbeCounts | undefined): ProbeCounts {
  if (!newer) return older
  const rollups = older.rollups.map((r) => ({ ...r }))
  for (const r of newer.rollups) {
    const bucket = rollups.find((o) => o.granularity === r.granularity && o.bucketStart === r.bucketStart)
    if (bucket) bucket.up += r.up
    else rollups.push(r)
  }
  const raw = [...older.raw, ...newer.raw].slice(0, RAW_ROWS_PER_FLUSH)
  return { rollups, raw, last: newer.last.at >= older.last.at ? newer.last : older.last }
}

/**
 * A HeartbeatLedger shard's storage, held whole in memory: the object is its storage's only writer, so after it
 * wakes every read is memory and a recorded ping is one small insert.
 */
export class LedgerStore {
  private readonly entries = new Map<string, Entry>()
  private pending = new Map<string, ProbeCounts>()
  private lastSeq = 0

  constructor(private readonly sql: SqlStorage) {
    for (const statement of SCHEMA) sql.exec(statement)
    for (const row of sql.exec<Row>('SELECT * FROM entries')) {
      const at = num(row.last_at)
      this.entries.set(text(row.probe_id), {
        hash: text(row.hash),
        active: row.active === 1,
        forward: row.forward === 1,
        last: at === null ? null : { at, exitStatus: num(row.last_exit), body: text(row.last_body) },
      })
    }
    for (const row of sql.exec<Row>('SELECT * FROM pings ORDER BY seq')) {
      const ping = { at: num(row.at) ?? 0, exitStatus: num(row.exit_status), body: text(row.body) }
      this.remember(text(row.probe_id), ping, num(row.seq) ?? 0)
    }
  }

  entry(probeId: string): LedgerEntry | undefined {
    return this.entries.get(probeId)
  }

  lastPing(probeId: string): LastPing | null {
    const last = this.entries.get(probeId)?.last
    return last ? toLastPing(last) : null
  }

  /** Sets a probe's entry, keeping its last ping; no write when nothing changed. */
  register(probeId: string, entry: LedgerEntry): void {
    const current = this.entries.get(probeId)
    if (
      current &&
      current.hash === entry.hash &&
      current.active === entry.active &&
      current.forward === entry.forward
    )
      return
    this.sql.exec(
      `INSERT INTO entries (probe_id, hash, active, forward) VALUES (?, ?, ?, ?)
        ON CONFLICT (probe_id) DO UPDATE SET hash = excluded.hash, active = excluded.active, forward = excluded.forward`,
      probeId,
      entry.hash,
      entry.active ? 1 : 0,
      entry.forward ? 1 : 0,
    )
    this.entries.set(probeId, { ...entry, last: current?.last ?? null })
  }

  /** Forgets a probe's entry (its pings not yet in D1 stay); answers its last ping. */
  remove(probeId: string): LastPing | null {
    const last = this.lastPing(probeId)
    if (this.entries.delete(probeId)) this.sql.exec('DELETE FROM entries WHERE probe_id = ?', probeId)
    return last
  }

  /**
   * Records a ping durably (one insert) and counts it. The sequence number is this object's own, one past the
   * highest it holds: it is the table's only writer, and a number only has to order the rows not yet in D1.
   */
  record(probeId: string, ping: LedgerPing): void {
    const seq = this.lastSeq + 1
    this.sql.exec(
      'INSERT INTO pings (seq, probe_id, at, exit_status, body) VALUES (?, ?, ?, ?, ?)',
      seq,
      probeId,
      ping.at,
      ping.exitStatus,
      ping.body,
    )
    this.remember(probeId, ping, seq)
  }

  private remember(probeId: string, ping: LedgerPing, seq: number): void {
    const result: RawResult = {
      at: ping.at,
      outcome: 'up',
      latencyMs: null,
      detail: pingDetail(ping.exitStatus),
    }
    const counts = this.pending.get(probeId) ?? emptyCounts(result)
    addPing(counts, result)
    this.pending.set(probeId, counts)
    this.lastSeq = Math.max(this.lastSeq, seq)
    const entry = this.entries.get(probeId)
    if (entry && (!entry.last || entry.last.at <= ping.at)) entry.last = ping
  }

  hasPending(): boolean {
    return this.pending.size > 0
  }

  /** Takes everything pending out for one flush; settle it with `written` or `failed`. */
  take(): LedgerBatch | null {
    if (this.pending.size === 0) return null
    const batch = { upTo: this.lastSeq, probes: this.pending }
    this.pending = new Map()
    return batch
  }

  /** D1 has the batch: its pings leave storage, and each probe's last ping is kept in its entry. */
  written(batch: LedgerBatch): void {
    for (const probeId of batch.probes.keys()) {
      const last = this.entries.get(probeId)?.last
      if (!last) continue
      this.sql.exec(
        'UPDATE entries SET last_at = ?, last_exit = ?, last_body = ? WHERE probe_id = ?',
        last.at,
        last.exitStatus,
        last.body,
        probeId,
      )
    }
    this.sql.exec('DELETE FROM pings WHERE seq <= ?', batch.upTo)
  }

  /** D1 refused the batch: its counts go back in front of what arrived meanwhile. */
  failed(batch: LedgerBatch): void {
    const merged = new Map<string, ProbeCounts>()
    for (const [probeId, counts] of batch.probes)
      merged.set(probeId, mergeCounts(counts, this.pending.get(probeId)))
    for (const [probeId, counts] of this.pending) if (!merged.has(probeId)) merged.set(probeId, counts)
    this.pending = merged
  }
}

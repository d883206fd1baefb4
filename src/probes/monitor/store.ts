import type { WindowRule } from '../../maintenance/coverage'
import type { ProbeNotifyMessage } from '../../notifications/probes/jobs'
import { EMPTY_NOTIFY_MEMORY, type NotifyMemory } from '../../notifications/probes/policy'
import type { AutoIncidentChange } from '../../status-pages/incidents/auto'
import type { Round } from '../locations/round'
import type { LastPing, MonitorSnapshot, ProbeState, WatchChange } from './api'
import {
  INITIAL_MONITOR_STATE,
  type MonitorState,
  type Observation,
  type StateTransition,
} from './state-machine'

/** Raw rows one flush writes at most; results past it in the same flush are counted in the rollups only. */
export const RAW_ROWS_PER_FLUSH = 100
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** A heartbeat's memory: its last ping, an open `/start`, and the base its next deadline counts from. */
export interface HeartbeatMemory {
  lastPing: LastPing | null
  startedAt: number | null
  /** The deadline is base + interval + grace: the last finished ping, or when the probe was armed. */
  base: number | null
}

/** One-off windows that ended longer ago than this are not read (a late result is judged by its own time). */
export const WINDOWS_LOOKBACK_MS = 3_600_000

/** The maintenance windows that may cover the probe, as read from D1 at `readAt` (ms). */
export interface KnownWindows {
  readAt: number
  windows: WindowRule[]
}

const NO_HEARTBEAT: HeartbeatMemory = { lastPing: null, startedAt: null, base: null }

export interface PendingResult {
  seq: number
  at: number
  outcome: 'up' | 'down' | 'degraded'
  latencyMs: number | null
  detail: string
}

export interface PendingEvent {
  seq: number
  at: number
  previousState: ProbeState
  state: ProbeState
  latencyMs: number | null
  detail: string | null
}

/** Check counts to add to one rollup bucket (UTC hours and days). */
export interface PendingRollup {
  granularity: 'hourly' | 'daily'
  bucketStart: number
  up: number
  down: number
  degraded: number
  latencySumMs: number
  latencyCount: number
  latencyMaxMs: number | null
}

/** The rows and increments not yet in D1: what one flush writes. */
export interface PendingWork {
  results: PendingResult[]
  events: PendingEvent[]
  rollups: PendingRollup[]
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS pending_results (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
    outcome TEXT NOT NULL, latency_ms INTEGER, detail TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS pending_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
    previous_state TEXT NOT NULL, state TEXT NOT NULL, latency_ms INTEGER, detail TEXT)`,
  `CREATE TABLE IF NOT EXISTS pending_rollups (granularity TEXT NOT NULL, bucket_start INTEGER NOT NULL,
    up INTEGER NOT NULL, down INTEGER NOT NULL, degraded INTEGER NOT NULL, latency_sum_ms INTEGER NOT NULL,
    latency_count INTEGER NOT NULL, latency_max_ms INTEGER, PRIMARY KEY (granularity, bucket_start))`,
]

// The cap and the insert are one statement.
const INSERT_RESULT = `INSERT INTO pending_results (at, outcome, latency_ms, detail)
  SELECT ?, ?, ?, ? WHERE (SELECT count(*) FROM pending_results) < ${RAW_ROWS_PER_FLUSH}`

const ADD_ROLLUP = `INSERT INTO pending_rollups VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (granularity, bucket_start) DO UPDATE SET up = up + excluded.up, down = down + excluded.down,
    degraded = degraded + excluded.degraded, latency_sum_ms = latency_sum_ms + excluded.latency_sum_ms,
    latency_count = latency_count + excluded.latency_count,
    latency_max_ms = coalesce(max(latency_max_ms, excluded.latency_max_ms), latency_max_ms, excluded.latency_max_ms)`

// Increments that arrived while a flush was in flight stay; a bucket left with nothing is dropped.
const SUBTRACT_ROLLUP = `UPDATE pending_rollups SET up = up - ?, down = down - ?, degraded = degraded - ?,
    latency_sum_ms = latency_sum_ms - ?, latency_count = latency_count - ?
  WHERE granularity = ? AND bucket_start = ?`

type Row = Record<string, SqlStorageValue>

/**
 * A ProbeMonitor's own storage (SQLite-backed; the synchronous kv and sql APIs, so a read and the write after
 * it never interleave with another call, and everything one call writes commits together).
 */
export class MonitorStore {
  private tablesReady = false
  // Every kv value this instance read or wrote (undefined for an absent key): the object is the storage's only
  // writer, so after the first read each ping reads memory, and only the writes reach storage.
  private readonly cache = new Map<string, unknown>()

  constructor(private readonly storage: DurableObjectStorage) {}

  // Made on first use, so a ping to a well-formed but unknown token leaves no storage behind.
  private get sql(): SqlStorage {
    if (!this.tablesReady) {
      for (const statement of SCHEMA) this.storage.sql.exec(statement)
      this.tablesReady = true
    }
    return this.storage.sql
  }

  // Values are never mutated in place (every setter takes a new object), so handing out the cached one is safe.
  private get<T>(key: string): T | undefined {
    if (!this.cache.has(key)) this.cache.set(key, this.storage.kv.get<T>(key))
    return this.cache.get(key) as T | undefined
  }

  private put(key: string, value: unknown): void {
    if (this.cache.get(key) === value) return
    this.cache.set(key, value)
    this.storage.kv.put(key, value)
  }

  private delete(key: string): void {
    if (this.cache.has(key) && this.cache.get(key) === undefined) return
    this.cache.set(key, undefined)
    this.storage.kv.delete(key)
  }

  snapshot(): MonitorSnapshot | null {
    return this.get<MonitorSnapshot>('snapshot') ?? null
  }

  setSnapshot(snapshot: MonitorSnapshot): void {
    this.put('snapshot', snapshot)
  }

  state(): MonitorState {
    return this.get<MonitorState>('state') ?? INITIAL_MONITOR_STATE
  }

  setState(state: MonitorState): void {
    this.put('state', state)
  }

  appliedChecks(): string[] {
    return this.get<string[]>('checks') ?? []
  }

  setAppliedChecks(ids: string[]): void {
    this.put('checks', ids)
  }

  notifyMemory(): NotifyMemory {
    return this.get<NotifyMemory>('notify') ?? EMPTY_NOTIFY_MEMORY
  }

  setNotifyMemory(memory: NotifyMemory): void {
    this.put('notify', memory)
  }

  heartbeat(): HeartbeatMemory {
    return this.get<HeartbeatMemory>('heartbeat') ?? NO_HEARTBEAT
  }

  setHeartbeat(memory: HeartbeatMemory): void {
    this.put('heartbeat', memory)
  }

  knownWindows(): KnownWindows | null {
    return this.get<KnownWindows>('windows') ?? null
  }

  setKnownWindows(known: KnownWindows): void {
    this.put('windows', known)
  }

  /** The open rounds of checks with node locations, oldest first. */
  rounds(): Round[] {
    return this.get<Round[]>('rounds') ?? []
  }

  setRounds(rounds: Round[]): void {
    if (rounds.length === 0) this.delete('rounds')
    else this.put('rounds', rounds)
  }

  /** The heartbeat ledger entry last registered (JSON, or `"removed"`); null before the first registration. */
  ledgerRegistered(): string | null {
    return this.get<string>('ledger') ?? null
  }

  setLedgerRegistered(key: string): void {
    this.put('ledger', key)
  }

  /** When the probe's own alarm runs its next check (intervals under a minute); null otherwise. */
  nextCheckAt(): number | null {
    return this.get<number>('nextCheckAt') ?? null
  }

  setNextCheckAt(at: number | null): void {
    this.putOrDelete('nextCheckAt', at)
  }

  /** When pending work is next flushed to D1; null when nothing is pending. */
  flushAt(): number | null {
    return this.get<number>('flushAt') ?? null
  }

  setFlushAt(at: number | null): void {
    this.putOrDelete('flushAt', at)
  }

  /** The time the alarm was set for: inside `alarm()` the runtime no longer says. */
  alarmAt(): number | null {
    return this.get<number>('alarmAt') ?? null
  }

  setAlarmAt(at: number | null): void {
    this.putOrDelete('alarmAt', at)
  }

  private putOrDelete(key: string, value: number | null): void {
    if (value === null) this.delete(key)
    else this.put(key, value)
  }

  /** Queues a result for D1: a raw row (while under the cap) and its hourly and daily rollup increments. */
  addResult(result: Observation): void {
    this.sql.exec(INSERT_RESULT, result.at, result.outcome, result.latencyMs, result.detail)
    const latency = result.latencyMs
    for (const [granularity, size] of [
      ['hourly', HOUR_MS],
      ['daily', DAY_MS],
    ] as const) {
      this.sql.exec(
        ADD_ROLLUP,
        granularity,
        Math.floor(result.at / size) * size,
        result.outcome === 'up' ? 1 : 0,
        result.outcome === 'down' ? 1 : 0,
        result.outcome === 'degraded' ? 1 : 0,
        latency ?? 0,
        latency === null ? 0 : 1,
        latency,
      )
    }
  }

  /** Queues a displayed-state change: one event row. */
  addEvent(change: StateTransition): void {
    this.sql.exec(
      'INSERT INTO pending_events (at, previous_state, state, latency_ms, detail) VALUES (?, ?, ?, ?, ?)',
      change.at,
      change.from,
      change.to,
      change.result?.latencyMs ?? null,
      change.result?.detail ?? null,
    )
  }

  addNotifications(messages: ProbeNotifyMessage[]): void {
    if (messages.length > 0) this.put('notifications', [...this.notifications(), ...messages])
  }

  private notifications(): ProbeNotifyMessage[] {
    return this.get<ProbeNotifyMessage[]>('notifications') ?? []
  }

  /** Owes the WatchHub a change of (state, enabled, lastChangedAt), after those owed already. */
  owePublish(change: WatchChange): void {
    this.put('publish', [...this.owedPublishes(), change])
  }

  publishOwed(): boolean {
    return this.get('publish') === true || this.owedPublishes().length > 0
  }

  private owedPublishes(): WatchChange[] {
    const owed = this.get<WatchChange[] | true>('publish')
    return Array.isArray(owed) ? owed : []
  }

  pending(): PendingWork {
    const sql = this.sql
    return {
      results: sql.exec<Row>('SELECT * FROM pending_results ORDER BY seq').toArray().map(toResult),
      events: sql.exec<Row>('SELECT * FROM pending_events ORDER BY seq').toArray().map(toEvent),
      rollups: sql.exec<Row>('SELECT * FROM pending_rollups').toArray().map(toRollup),
    }
  }

  /** Forgets the rows and increments a flush wrote to D1, keeping whatever arrived meanwhile. */
  clearWritten(work: PendingWork): void {
    const lastResult = work.results.at(-1)?.seq ?? 0
    const lastEvent = work.events.at(-1)?.seq ?? 0
    this.sql.exec('DELETE FROM pending_results WHERE seq <= ?', lastResult)
    this.sql.exec('DELETE FROM pending_events WHERE seq <= ?', lastEvent)
    for (const r of work.rollups) {
      this.sql.exec(
        SUBTRACT_ROLLUP,
        r.up,
        r.down,
        r.degraded,
        r.latencySumMs,
        r.latencyCount,
        r.granularity,
        r.bucketStart,
      )
    }
    this.sql.exec(
      'DELETE FROM pending_rollups WHERE up = 0 AND down = 0 AND degraded = 0 AND latency_count = 0',
    )
  }

  /** Takes the queued notifications out (put them back with addNotifications when sending fails). */
  takeNotifications(): ProbeNotifyMessage[] {
    const taken = this.notifications()
    this.delete('notifications')
    return taken
  }

  /**
   * Takes the owed changes out, oldest first (put the unsent back with returnPublishes). Storage written before
   * changes were kept one by one holds `true`, owing the probe as it stands: `current`.
   */
  takePublishes(current: () => WatchChange): WatchChange[] {
    const owed = this.get('publish') === true ? [current()] : this.owedPublishes()
    this.delete('publish')
    return owed
  }

  /** Owes the status pages' automatic incidents a change, after those owed already. */
  oweIncidentChange(change: AutoIncidentChange): void {
    this.put('incidents', [...this.owedIncidentChanges(), change])
  }

  private owedIncidentChanges(): AutoIncidentChange[] {
    return this.get<AutoIncidentChange[]>('incidents') ?? []
  }

  /** Takes the changes owed to automatic incidents out, oldest first (put the unapplied back with returnIncidentChanges). */
  takeIncidentChanges(): AutoIncidentChange[] {
    const owed = this.owedIncidentChanges()
    this.delete('incidents')
    return owed
  }

  /** Puts changes that could not be applied back before any owed since. */
  returnIncidentChanges(changes: AutoIncidentChange[]): void {
    if (changes.length > 0) this.put('incidents', [...changes, ...this.owedIncidentChanges()])
  }

  /** Puts changes that could not be published back before any owed since. */
  returnPublishes(changes: WatchChange[]): void {
    if (changes.length > 0) this.put('publish', [...changes, ...this.owedPublishes()])
  }

  /** Whether anything waits for D1, the queue or the hub. */
  hasPending(): boolean {
    const rows = this.sql
      .exec<{ n: number }>(
        `SELECT (SELECT count(*) FROM pending_results) + (SELECT count(*) FROM pending_events)
          + (SELECT count(*) FROM pending_rollups) AS n`,
      )
      .one().n
    return (
      rows > 0 ||
      this.notifications().length > 0 ||
      this.publishOwed() ||
      this.owedIncidentChanges().length > 0
    )
  }
}

function num(value: SqlStorageValue | undefined): number {
  return typeof value === 'number' ? value : 0
}

function numOrNull(value: SqlStorageValue | undefined): number | null {
  return typeof value === 'number' ? value : null
}

function str(value: SqlStorageValue | undefined): string {
  return typeof value === 'string' ? value : ''
}

function toResult(row: Row): PendingResult {
  return {
    seq: num(row.seq),
    at: num(row.at),
    outcome: str(row.outcome) as PendingResult['outcome'],
    latencyMs: numOrNull(row.latency_ms),
    detail: str(row.detail),
  }
}

function toEvent(row: Row): PendingEvent {
  return {
    seq: num(row.seq),
    at: num(row.at),
    previousState: str(row.previous_state) as ProbeState,
    state: str(row.state) as ProbeState,
    latencyMs: numOrNull(row.latency_ms),
    detail: typeof row.detail === 'string' ? row.detail : null,
  }
}

function toRollup(row: Row): PendingRollup {
  return {
    granularity: str(row.granularity) === 'daily' ? 'daily' : 'hourly',
    bucketStart: num(row.bucket_start),
    up: num(row.up),
    down: num(row.down),
    degraded: num(row.degraded),
    latencySumMs: num(row.latency_sum_ms),
    latencyCount: num(row.latency_count),
    latencyMaxMs: numOrNull(row.latency_max_ms),
  }
}

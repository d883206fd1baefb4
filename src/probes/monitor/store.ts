import type { WindowRule } from '../../maintenance/coverage'
import type { ProbeNotifyMessage } from '../../notifications/probes/jobs'
import { EMPTY_NOTIFY_MEMORY, type NotifyMemory } from '../../notifications/probes/policy'
import type { AutoIncidentChange } from '../../status-pages/incidents/auto'
import type { Round } from '../locations/round'
import type { LastPing, MonitorSnapshot, ProbeState, WatchChange } from './api'
import { INITIAL_MONITOR_STATE, type MonitorState, type StateTransition } from './state-machine'

/** Raw rows a heartbeat ledger's flush writes per probe at most; the rest are counted in the rollups only. */
export const RAW_ROWS_PER_FLUSH = 100

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
  /** Timed checks per latency bucket (see LATENCY_BOUNDS_MS); null when none was timed or counted. */
  latencyBuckets: number[] | null
}

/**
 * What monitors before raw results moved out of D1 left queued (a raw row per result, rollup increments): written
 * by the first flush after the upgrade, then the tables go.
 */
export interface LegacyWork {
  results: PendingResult[]
  rollups: PendingRollup[]
}

/** The events not yet in D1, and what older monitors left queued. */
export interface PendingWork {
  events: PendingEvent[]
  legacy: LegacyWork | null
}

const EVENTS_TABLE = `CREATE TABLE IF NOT EXISTS pending_events (seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL, previous_state TEXT NOT NULL, state TEXT NOT NULL, latency_ms INTEGER, detail TEXT)`

type Row = Record<string, SqlStorageValue>

/**
 * A ProbeMonitor's own storage (SQLite-backed; the synchronous kv and sql APIs, so a read and the write after
 * it never interleave with another call, and everything one call writes commits together).
 */
export class MonitorStore {
  private tablesReady = false
  private legacyChecked = false
  // Every kv value this instance read or wrote (undefined for an absent key): the object is the storage's only
  // writer, so after the first read each ping reads memory, and only the writes reach storage.
  private readonly cache = new Map<string, unknown>()

  constructor(private readonly storage: DurableObjectStorage) {}

  // Made on first use, so a ping to a well-formed but unknown token leaves no storage behind.
  private get sql(): SqlStorage {
    if (!this.tablesReady) {
      this.storage.sql.exec(EVENTS_TABLE)
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
      events: sql.exec<Row>('SELECT * FROM pending_events ORDER BY seq').toArray().map(toEvent),
      legacy: this.legacy(),
    }
  }

  private legacy(): LegacyWork | null {
    if (this.legacyChecked) return null
    const tables = this.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('pending_results', 'pending_rollups')",
      )
      .toArray()
      .map((row) => row.name)
    if (tables.length === 0) {
      this.legacyChecked = true
      return null
    }
    const read = (table: string) =>
      tables.includes(table) ? this.sql.exec<Row>(`SELECT * FROM ${table}`).toArray() : []
    return { results: read('pending_results').map(toResult), rollups: read('pending_rollups').map(toRollup) }
  }

  /** Forgets the events a flush wrote to D1, keeping whatever arrived meanwhile, and the legacy tables. */
  clearWritten(work: PendingWork): void {
    const lastEvent = work.events.at(-1)?.seq ?? 0
    this.sql.exec('DELETE FROM pending_events WHERE seq <= ?', lastEvent)
    if (work.legacy) {
      this.sql.exec('DROP TABLE IF EXISTS pending_results')
      this.sql.exec('DROP TABLE IF EXISTS pending_rollups')
      this.legacyChecked = true
    }
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

  /** Whether events, notifications or frames wait for D1, the queue or the hub (rollups wait for their hour). */
  hasPending(): boolean {
    const events = this.sql.exec<{ n: number }>('SELECT count(*) AS n FROM pending_events').one().n
    return (
      events > 0 ||
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
    latencyBuckets: null,
  }
}

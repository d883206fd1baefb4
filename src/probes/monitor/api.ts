import type { Verdict } from '../checks/verdict'
import type { ProbeConfig, ProbeNotifyConfig, ProbeType } from '../config'
import type { RoundPlace } from '../locations/round'
import type { OwedRollup, StoredResult } from './results-store'
import type { KnownWindows } from './store'

/** What one check (or one heartbeat signal) found. `degraded` answered, but slowly or only in part. */
export type CheckOutcome = 'up' | 'down' | 'degraded'

export type ProbeState = 'up' | 'down' | 'degraded' | 'flapping' | 'paused'
export type ProbeTargetKind = 'node' | 'instance' | 'site' | 'domain' | 'external'

/** One check's result, as the queue consumer or the probe's own alarm hands it to the ProbeMonitor. */
export interface CheckResult {
  /** `<probeId>:<scheduled ms>`: a result applied twice changes the state once. */
  checkId: string
  /** When the check ran (ms epoch). */
  at: number
  outcome: CheckOutcome
  latencyMs: number | null
  /** Why, in one line for people: "HTTP 503", "connect timed out after 10000 ms", "expires in 3 days". */
  detail: string
}

/** The result kept on the probe (ProbeSummary.lastResult). */
export interface ProbeLastResult {
  at: string
  outcome: CheckOutcome
  latencyMs: number | null
  detail: string
}

/** The catalogue fields the ProbeMonitor needs; sent by every procedure that changes the probe. */
export interface MonitorSnapshot {
  id: string
  name: string
  type: ProbeType
  targetKind: ProbeTargetKind
  targetId: string | null
  target: string
  /** Where the checks run (`edge`, node ids); absent in snapshots stored before locations existed: the edge. */
  locations?: string[]
  enabled: boolean
  archived: boolean
  config: ProbeConfig
  notifyConfig: ProbeNotifyConfig
  hasWebhookSecret: boolean
  /** SHA-256 hex of the heartbeat token's secret part; null for other types. */
  heartbeatTokenHash: string | null
  /** The catalogue row's updatedAt (ms): an older snapshot never replaces a newer one. */
  version: number
}

export type PingSignal = 'success' | 'start' | 'fail'

/** One heartbeat ping, as the public route hands it over. */
export interface Ping {
  /** The token's secret part; the monitor compares its hash. */
  secret: string
  signal: PingSignal
  /** The exit status when the URL ended in one (`/0` is success, anything else fail). */
  exitStatus: number | null
  /** The request body, truncated to 10 KB. */
  body: string
  at: number
}

/** The last ping a heartbeat kept. */
export interface LastPing {
  at: string
  signal: PingSignal
  exitStatus: number | null
  body: string
  /** From the preceding `/start` to this ping, when there was one. */
  durationMs: number | null
}

/** The probe's live state as its monitor holds it (fresher than the catalogue's copy). */
export interface LiveState {
  state: ProbeState
  consecutiveFailures: number
  lastResult: ProbeLastResult | null
  lastCheckedAt: number | null
  lastChangedAt: number | null
  lastPing: LastPing | null
}

/** A probe's ProbeMonitor Durable Object (named by the probe id), as callers see it. */
export interface ProbeMonitorRpc {
  /** Takes the catalogue's latest snapshot (create, update, pause, resume, archive, token rotation). */
  configure(snapshot: MonitorSnapshot): Promise<LiveState>
  /**
   * Applies one check result; the snapshot refreshes the monitor's copy when newer, and so do the maintenance
   * windows covering the probe when given (read by the caller for many probes at once). Idempotent by checkId.
   */
  applyResult(snapshot: MonitorSnapshot, result: CheckResult, windows?: KnownWindows): Promise<LiveState>
  /** Records a heartbeat ping durably; false when the token is wrong or the probe is paused or archived. */
  ping(ping: Ping): Promise<boolean>
  /** The live state; null before the first configure. */
  live(): Promise<LiveState | null>
  /** Reads the maintenance windows covering the probe again (one was created, changed or removed). */
  maintenanceChanged(): Promise<void>
  /**
   * Opens a round of a check with node locations (the snapshot refreshes the monitor's copy when newer) and
   * answers the locations still to run: all of them for a new round, the unfilled ones when the round is open
   * already, none when the check was judged already or the probe does not run.
   */
  openRound(snapshot: MonitorSnapshot, opening: RoundOpening, windows?: KnownWindows): Promise<string[]>
  /** One location's verdict for an open round; false when the round does not wait for it (judged, or filled). */
  reportLocation(checkId: string, location: string, verdict: Verdict): Promise<boolean>
  /**
   * Raw results in (from, to], newest first, at most RAW_HISTORY_LIMIT: the checks, or with `location` what that
   * location (`edge` or a node id) measured.
   */
  rawResults(from: number, to: number, location: string | null): Promise<StoredResult[]>
  /**
   * The buckets from `from` on that D1 lacks in part at `now`: the open hour or day, any not written yet, and
   * those closed whose percentiles are not written yet.
   */
  unwrittenRollups(granularity: 'hourly' | 'daily', from: number, now: number): Promise<HistoryRollup[]>
}

/** A rollup bucket the monitor holds that D1 lacks in part: counts to add to D1's, percentiles once closed. */
export type HistoryRollup = OwedRollup

/** A round as the dispatcher opens it: the check, its time and deadline, and its locations. */
export interface RoundOpening {
  checkId: string
  at: number
  deadline: number
  places: Omit<RoundPlace, 'verdict'>[]
}

/** What the WatchHub needs of a change: the watch row plus the target, for stream filters. */
export interface WatchChange {
  id: string
  name: string
  state: ProbeState
  enabled: boolean
  lastChangedAt: string | null
  targetKind: ProbeTargetKind
  targetId: string | null
}

import type { ProbeConfig, ProbeNotifyConfig, ProbeType } from '../config'

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

/** Whether the probe runs: enabled and not archived. */
export const isActive = (s: MonitorSnapshot) => s.enabled && !s.archived

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

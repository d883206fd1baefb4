import type { Verdict } from '../checks/verdict'
import type { RoundPlace } from '../locations/round'
import type { CheckResult, LiveState, MonitorSnapshot, Ping } from './api'
import type { OwedRollup, StoredResult } from './results-store'
import type { KnownWindows } from './store'

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

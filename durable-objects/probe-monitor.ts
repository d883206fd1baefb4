import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../src/env'
import type { Verdict } from '../src/probes/checks/verdict'
import { recordPing } from '../src/probes/heartbeat/monitor-ping'
import { EDGE } from '../src/probes/locations/schema'
import { accept } from '../src/probes/monitor/accept-snapshot'
import { runAlarm } from '../src/probes/monitor/alarm'
import type { CheckResult, LiveState, MonitorSnapshot, Ping } from '../src/probes/monitor/api'
import { applyCheck } from '../src/probes/monitor/apply-check'
import { type MonitorContext, monitorContext } from '../src/probes/monitor/context'
import { liveStateOf, liveWithLedger } from '../src/probes/monitor/live'
import { readWindows, takeWindows } from '../src/probes/monitor/maintenance-windows'
import { coverChanged } from '../src/probes/monitor/maintenance-withhold'
import type { StoredResult } from '../src/probes/monitor/results-store'
import { fillRoundIn, judgeRounds, openRoundIn } from '../src/probes/monitor/rounds'
import type { HistoryRollup, ProbeMonitorRpc, RoundOpening } from '../src/probes/monitor/rpc'
import { settle } from '../src/probes/monitor/settle'
import type { KnownWindows } from '../src/probes/monitor/store'

/**
 * One probe's live state (named by the probe id): the state machine, its heartbeat pings, its notifications and
 * one alarm standing for its next deadline (heartbeat deadline, own check, flush, flap window end, reminder).
 * Raw results stay in its own SQLite for the raw retention (its raw history). D1 is written when the displayed
 * state changes (one batch) and once an hour closes (the hour's rollups with their percentiles, the day's
 * increments, the probe's last check), at the probe's offset in ROLLUP_SPREAD_MS: never once per check.
 * Each concern lives in src/probes/monitor/ (and the heartbeat's in src/probes/heartbeat/); this class only
 * orders them per call.
 */
export class ProbeMonitor extends DurableObject<Env> implements ProbeMonitorRpc {
  private readonly monitor: MonitorContext

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.monitor = monitorContext(ctx.storage, env)
  }

  async configure(snapshot: MonitorSnapshot): Promise<LiveState> {
    await readWindows(this.monitor, snapshot.id)
    const urgent = accept(this.monitor, snapshot, Date.now())
    // The ledger is told before the answer (a pause, an archive or a new token holds from this moment), and a
    // failure to tell it fails the call; the alarm retries it meanwhile.
    await settle(this.monitor, urgent, true)
    return this.live().then((live) => live ?? liveStateOf(this.monitor.store))
  }

  async applyResult(
    snapshot: MonitorSnapshot,
    result: CheckResult,
    windows?: KnownWindows,
  ): Promise<LiveState> {
    takeWindows(this.monitor, windows)
    await readWindows(this.monitor, snapshot.id)
    const paused = accept(this.monitor, snapshot, Date.now())
    const changed = applyCheck(this.monitor, result, EDGE)
    await settle(this.monitor, paused || changed)
    return liveStateOf(this.monitor.store)
  }

  async rawResults(from: number, to: number, location: string | null): Promise<StoredResult[]> {
    return this.monitor.results.raw(from, to, location)
  }

  async unwrittenRollups(
    granularity: 'hourly' | 'daily',
    from: number,
    now: number,
  ): Promise<HistoryRollup[]> {
    return this.monitor.results
      .owed(now)
      .rollups.filter((r) => r.granularity === granularity && r.bucketStart >= from)
  }

  async openRound(
    snapshot: MonitorSnapshot,
    opening: RoundOpening,
    windows?: KnownWindows,
  ): Promise<string[]> {
    takeWindows(this.monitor, windows)
    await readWindows(this.monitor, snapshot.id)
    const now = Date.now()
    const paused = accept(this.monitor, snapshot, now)
    const waiting = openRoundIn(this.monitor.store, opening, now)
    const judged = judgeRounds(this.monitor, now)
    await settle(this.monitor, paused || judged)
    return waiting
  }

  async reportLocation(checkId: string, location: string, verdict: Verdict): Promise<boolean> {
    const snapshot = this.monitor.store.snapshot()
    if (snapshot) await readWindows(this.monitor, snapshot.id)
    if (!fillRoundIn(this.monitor.store, checkId, location, verdict)) return false
    await settle(this.monitor, judgeRounds(this.monitor, Date.now()))
    return true
  }

  async ping(ping: Ping): Promise<boolean> {
    return recordPing(this.monitor, ping)
  }

  /** The live state, with the newer of this monitor's and the ledger's last ping (and the check it stands for). */
  async live(): Promise<LiveState | null> {
    return liveWithLedger(this.monitor.store, this.env)
  }

  override async alarm(): Promise<void> {
    await runAlarm(this.monitor)
  }

  async maintenanceChanged(): Promise<void> {
    const snapshot = this.monitor.store.snapshot()
    if (!snapshot) return
    await readWindows(this.monitor, snapshot.id, true)
    coverChanged(this.monitor.store, Date.now())
    await settle(this.monitor, false)
  }
}

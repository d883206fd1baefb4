import { DurableObject } from 'cloudflare:workers'
import { db } from '../src/db/client'
import type { Env } from '../src/env'
import { sha256Hex, timingSafeEqual } from '../src/lib/hash'
import { windowsCoveringProbe } from '../src/maintenance/windows-read'
import { changeNotification, notifyMessages } from '../src/notifications/probes/jobs'
import { decideOnChange } from '../src/notifications/probes/policy'
import { runCheck } from '../src/probes/checks/run-check'
import { SCAN_MIN_INTERVAL_SECONDS } from '../src/probes/checks/scan-cron'
import type { Verdict } from '../src/probes/checks/verdict'
import { isCheckedConfig } from '../src/probes/config'
import {
  deadlineAfter,
  heartbeatTimesOf,
  isActive,
  ledgerEntryOf,
  missedDeadlines,
  newerPing,
  pingTime,
} from '../src/probes/heartbeat/deadlines'
import { ledgerFor } from '../src/probes/heartbeat/ledger-api'
import { dispatchRound } from '../src/probes/locations/dispatch'
import { dueRounds, judgeRound } from '../src/probes/locations/round'
import { EDGE, isEdgeOnly } from '../src/probes/locations/schema'
import type { CheckResult, LiveState, MonitorSnapshot, Ping } from '../src/probes/monitor/api'
import { oweAutoIncident } from '../src/probes/monitor/auto-incidents'
import { FLUSH_DELAY_MS, flushOwed, oweFlushBy } from '../src/probes/monitor/flush-owed'
import { liveWithLedger } from '../src/probes/monitor/live'
import {
  coverAt,
  remindWhileDown,
  settleMaintenance,
  withheldBy,
} from '../src/probes/monitor/maintenance-withhold'
import { liveStateOf, nextDeadline } from '../src/probes/monitor/next-deadline'
import { currentChange, watchChange } from '../src/probes/monitor/outbox'
import { ResultsStore, rollupDueAt, type StoredResult } from '../src/probes/monitor/results-store'
import { fillRoundIn, locationShares, openRoundIn, soleLocation } from '../src/probes/monitor/rounds'
import type { HistoryRollup, ProbeMonitorRpc, RoundOpening } from '../src/probes/monitor/rpc'
import { type MonitorInput, reduce, rememberCheck } from '../src/probes/monitor/state-machine'
import { type KnownWindows, MonitorStore, WINDOWS_LOOKBACK_MS } from '../src/probes/monitor/store'

/** The maintenance windows are read from D1 again when older than this before an input is judged. */
const WINDOWS_TTL_MS = 60_000

/** Whether this monitor's own alarm runs the checks (intervals under a minute; the minute scan runs the rest). */
function runsOwnChecks(snapshot: MonitorSnapshot): boolean {
  return isCheckedConfig(snapshot.config) && snapshot.config.intervalSeconds < SCAN_MIN_INTERVAL_SECONDS
}

/**
 * One probe's live state (named by the probe id): the state machine, its heartbeat pings, its notifications and
 * one alarm standing for its next deadline (heartbeat deadline, own check, flush, flap window end, reminder).
 * Raw results stay in its own SQLite for the raw retention (its raw history). D1 is written when the displayed
 * state changes (one batch) and once an hour closes (the hour's rollups with their percentiles, the day's
 * increments, the probe's last check), at the probe's offset in ROLLUP_SPREAD_MS: never once per check.
 */
export class ProbeMonitor extends DurableObject<Env> implements ProbeMonitorRpc {
  private readonly store: MonitorStore
  private readonly results: ResultsStore
  private flushing: Promise<void> = Promise.resolve()
  private syncing: Promise<void> = Promise.resolve()
  private readingWindows: Promise<void> | null = null

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.store = new MonitorStore(ctx.storage)
    this.results = new ResultsStore(ctx.storage)
  }

  async configure(snapshot: MonitorSnapshot): Promise<LiveState> {
    await this.readWindows(snapshot.id)
    const urgent = this.accept(snapshot, Date.now())
    // The ledger is told before the answer (a pause, an archive or a new token holds from this moment), and a
    // failure to tell it fails the call; the alarm retries it meanwhile.
    await this.settle(urgent, true)
    return this.live().then((live) => live ?? this.liveState())
  }

  async applyResult(
    snapshot: MonitorSnapshot,
    result: CheckResult,
    windows?: KnownWindows,
  ): Promise<LiveState> {
    this.takeWindows(windows)
    await this.readWindows(snapshot.id)
    const paused = this.accept(snapshot, Date.now())
    const changed = this.applyCheck(result, EDGE)
    await this.settle(paused || changed)
    return this.liveState()
  }

  async rawResults(from: number, to: number, location: string | null): Promise<StoredResult[]> {
    return this.results.raw(from, to, location)
  }

  async unwrittenRollups(
    granularity: 'hourly' | 'daily',
    from: number,
    now: number,
  ): Promise<HistoryRollup[]> {
    return this.results
      .owed(now)
      .rollups.filter((r) => r.granularity === granularity && r.bucketStart >= from)
  }

  async openRound(
    snapshot: MonitorSnapshot,
    opening: RoundOpening,
    windows?: KnownWindows,
  ): Promise<string[]> {
    this.takeWindows(windows)
    await this.readWindows(snapshot.id)
    const now = Date.now()
    const paused = this.accept(snapshot, now)
    const waiting = openRoundIn(this.store, opening, now)
    const judged = this.judgeRounds(now)
    await this.settle(paused || judged)
    return waiting
  }

  async reportLocation(checkId: string, location: string, verdict: Verdict): Promise<boolean> {
    const snapshot = this.store.snapshot()
    if (snapshot) await this.readWindows(snapshot.id)
    if (!fillRoundIn(this.store, checkId, location, verdict)) return false
    await this.settle(this.judgeRounds(Date.now()))
    return true
  }

  async ping(ping: Ping): Promise<boolean> {
    // Hashed before anything is read, whatever the probe, so a refusal takes as long as an acceptance.
    const hash = await sha256Hex(ping.secret)
    const snapshot = this.store.snapshot()
    const expected = snapshot?.heartbeatTokenHash ?? ''
    const matches = timingSafeEqual(hash, expected)
    if (!snapshot || !matches || !isActive(snapshot) || snapshot.type !== 'heartbeat') return false
    await this.readWindows(snapshot.id)
    const heartbeat = this.store.heartbeat()
    const lastPing = { at: new Date(ping.at).toISOString(), signal: ping.signal, exitStatus: ping.exitStatus }
    if (ping.signal === 'start') {
      this.store.setHeartbeat({
        ...heartbeat,
        lastPing: { ...lastPing, body: ping.body, durationMs: null },
        startedAt: ping.at,
      })
      // The ledger forwards the run's finish here (only the monitor can time it); the run's grace is armed.
      await this.settle(false)
      return true
    }
    const durationMs = heartbeat.startedAt === null ? null : Math.max(0, ping.at - heartbeat.startedAt)
    this.store.setHeartbeat({
      lastPing: { ...lastPing, body: ping.body, durationMs },
      startedAt: null,
      base: ping.at,
    })
    const failed = ping.signal === 'fail' || (ping.exitStatus !== null && ping.exitStatus !== 0)
    const detail =
      ping.exitStatus !== null
        ? `exit status ${ping.exitStatus}`
        : failed
          ? 'failure signalled'
          : 'ping received'
    const urgent = this.record({
      kind: 'result',
      at: ping.at,
      outcome: failed ? 'down' : 'up',
      latencyMs: durationMs,
      detail,
    })
    await this.settle(urgent)
    return true
  }

  /** The live state, with the newer of this monitor's and the ledger's last ping (and the check it stands for). */
  async live(): Promise<LiveState | null> {
    return liveWithLedger(this.store, this.env)
  }

  override async alarm(): Promise<void> {
    // The alarm stands for the moment it was set for, even when it runs later (or early, in tests).
    const now = Math.max(Date.now(), this.store.alarmAt() ?? 0)
    const snapshot = this.store.snapshot()
    if (!snapshot) return
    // Before anything is written: if the ledger cannot answer, the runtime retries the whole alarm.
    await this.catchUpWithLedger(snapshot, now)
    await this.readWindows(snapshot.id)
    this.store.setAlarmAt(null)
    let urgent = this.record({ kind: 'tick', at: now })
    urgent = this.judgeRounds(now) || urgent
    for (const missed of missedDeadlines(this.store, snapshot, now)) urgent = this.record(missed) || urgent
    urgent = (await this.runOwnCheck(snapshot, now)) || urgent
    urgent = remindWhileDown(this.store, now) || urgent
    const flushAt = this.store.flushAt()
    await this.settle(urgent || (flushAt !== null && flushAt <= now), false, now)
  }

  async maintenanceChanged(): Promise<void> {
    const snapshot = this.store.snapshot()
    if (!snapshot) return
    await this.readWindows(snapshot.id, true)
    const memory = this.store.notifyMemory()
    const held = memory.withheld ?? null
    if (held !== null) {
      // Cover may now end sooner (a window removed) or later: the settlement waits for the new end.
      const now = Date.now()
      const until = coverAt(this.store, now)?.until ?? Math.min(held.until, now)
      this.store.setNotifyMemory({ ...memory, withheld: { ...held, until } })
    }
    await this.settle(false)
  }

  /** Keeps windows a caller read for this probe when they are newer than the copy kept. */
  private takeWindows(windows: KnownWindows | undefined): void {
    if (windows && windows.readAt > (this.store.knownWindows()?.readAt ?? -1))
      this.store.setKnownWindows(windows)
  }

  /**
   * Reads the windows that may cover the probe from D1 when the copy kept is older than WINDOWS_TTL_MS (or when
   * told they changed). Done before an input is judged, never in the middle; if D1 cannot answer, the kept copy
   * stands.
   */
  private readWindows(probeId: string, force = false): Promise<void> {
    const known = this.store.knownWindows()
    if (!force && known !== null && Date.now() - known.readAt < WINDOWS_TTL_MS) return Promise.resolve()
    this.readingWindows ??= (async () => {
      const readAt = Date.now()
      try {
        const windows = await windowsCoveringProbe(db(this.env.DB), probeId, readAt - WINDOWS_LOOKBACK_MS)
        this.store.setKnownWindows({ readAt, windows })
      } catch (error) {
        console.error(`probe ${probeId}: reading maintenance windows failed`, error)
      } finally {
        this.readingWindows = null
      }
    })()
    return this.readingWindows
  }

  /** Takes a snapshot unless an older one; pausing, resuming and re-arming follow from it. Urgent when it changed the state. */
  private accept(snapshot: MonitorSnapshot, now: number): boolean {
    const previous = this.store.snapshot()
    if (previous && previous.version > snapshot.version) return false
    // The same version is the same catalogue row: no storage write for each check's copy of it.
    if (previous?.version !== snapshot.version) this.store.setSnapshot(snapshot)
    const wasActive = previous ? isActive(previous) : false
    const flipped = !previous || previous.enabled !== snapshot.enabled
    if (!isActive(snapshot)) {
      this.store.setNextCheckAt(null)
      this.store.setRounds([])
      this.store.setHeartbeat({ ...this.store.heartbeat(), startedAt: null, base: null })
      const changed = this.record({ kind: 'pause', at: now })
      // A pause that changed the state owes its change already, with the new enabled.
      if (flipped && !changed) this.oweCurrent(snapshot)
      return changed
    }
    if (flipped) this.oweCurrent(snapshot)
    if (heartbeatTimesOf(snapshot) && (!wasActive || this.store.heartbeat().base === null)) {
      // Armed now, so a heartbeat never pinged still goes down.
      this.store.setHeartbeat({ ...this.store.heartbeat(), base: now })
    }
    if (!runsOwnChecks(snapshot)) this.store.setNextCheckAt(null)
    else if (!wasActive || this.store.nextCheckAt() === null) this.store.setNextCheckAt(now)
    return false
  }

  /**
   * Applies a check result once per check id, measured at `location` (null for a round over several, whose
   * locations' own verdicts come as `shares`: kept for their location's history, counted once as the result).
   */
  private applyCheck(result: CheckResult, location: string | null, shares: StoredResult[] = []): boolean {
    const snapshot = this.store.snapshot()
    if (!snapshot || !isActive(snapshot)) return false
    const ids = rememberCheck(this.store.appliedChecks(), result.checkId)
    if (!ids) return false
    this.store.setAppliedChecks(ids)
    for (const share of shares) this.results.add(share, false)
    const { at, outcome, latencyMs, detail } = result
    return this.record({ kind: 'result', at, outcome, latencyMs, detail }, location)
  }

  /**
   * Runs one input through the state machine and keeps what it produced: the result's raw row (its rollups are
   * owed from the hour's end), an event and a notification decision per displayed change. True when the
   * displayed state changed.
   */
  private record(input: MonitorInput, location: string | null = null): boolean {
    const snapshot = this.store.snapshot()
    if (!snapshot) return false
    // What maintenance withheld is settled as of the cover's end, before anything later is judged.
    const settled = settleMaintenance(this.store, input.at)
    const step = reduce(this.store.state(), input, snapshot.config)
    this.store.setState(step.next)
    if (input.kind === 'result') {
      const { at, outcome, latencyMs, detail } = input
      this.results.add({ at, outcome, latencyMs, detail, location })
      oweFlushBy(this.store, rollupDueAt(snapshot.id, at))
    }
    let memory = this.store.notifyMemory()
    for (const change of step.changes) {
      this.store.addEvent(change)
      this.store.owePublish(watchChange(snapshot, change.to, change.at))
      const cover = coverAt(this.store, change.at)
      oweAutoIncident(this.store, change, cover !== null)
      const decision = decideOnChange(memory, change, snapshot.notifyConfig, cover?.until ?? null)
      if (decision.notify || decision.withheld) {
        const notification = changeNotification(snapshot, change, memory)
        this.store.addNotifications(notifyMessages(snapshot, notification, withheldBy(decision, cover)))
      }
      memory = decision.memory
    }
    this.store.setNotifyMemory(memory)
    if (step.changes.length > 0 || settled) this.owePending()
    return step.changes.length > 0 || settled
  }

  private owePending(): void {
    oweFlushBy(this.store, Date.now() + FLUSH_DELAY_MS)
  }

  /**
   * The ledger records the plain pings of an up heartbeat: a due deadline first asks it for the probe's last
   * ping, and a newer one moves the deadline's base (no miss; the alarm re-arms for the new deadline).
   */
  private async catchUpWithLedger(snapshot: MonitorSnapshot, now: number): Promise<void> {
    const times = heartbeatTimesOf(snapshot)
    const { base } = this.store.heartbeat()
    if (!times || !isActive(snapshot) || base === null) return
    const deadline = deadlineAfter(times, base)
    if (deadline === null || deadline > now) return
    const last = pingTime(await ledgerFor(this.env, snapshot.id).lastPing(snapshot.id))
    const heartbeat = this.store.heartbeat()
    if (last !== null && heartbeat.base !== null && last > heartbeat.base)
      this.store.setHeartbeat({ ...heartbeat, base: last })
  }

  private async runOwnCheck(snapshot: MonitorSnapshot, now: number): Promise<boolean> {
    const due = this.store.nextCheckAt()
    const config = snapshot.config
    if (
      due === null ||
      due > now ||
      !isActive(snapshot) ||
      !runsOwnChecks(snapshot) ||
      !isCheckedConfig(config)
    )
      return false
    const intervalMs = config.intervalSeconds * 1000
    // Moved on before the check runs, so an alarm that dies mid-check does not run the same slot forever.
    this.store.setNextCheckAt(Math.max(due + intervalMs, now))
    if (isEdgeOnly(snapshot.locations)) {
      const result = await runCheck(this.env, snapshot, `${snapshot.id}:${due}`)
      return this.applyCheck(result, EDGE)
    }
    await dispatchRound(this.env, snapshot, due, {
      open: async (opening) => openRoundIn(this.store, opening, Date.now()),
      report: async (checkId, location, verdict) => fillRoundIn(this.store, checkId, location, verdict),
    })
    // By the real clock: the alarm's own moment may lie past the deadline of the round it just opened.
    return this.judgeRounds(Date.now())
  }

  /** Judges the rounds that are complete or past their deadline, oldest first, each as one check result. */
  private judgeRounds(now: number): boolean {
    const { due, open } = dueRounds(this.store.rounds(), now)
    if (due.length === 0) return false
    this.store.setRounds(open)
    const config = this.store.snapshot()?.config
    const confirmations = config && 'confirmations' in config ? config.confirmations : undefined
    let urgent = false
    for (const round of due) {
      const result = { checkId: round.checkId, at: round.at, ...judgeRound(round, confirmations) }
      urgent = this.applyCheck(result, soleLocation(round), locationShares(round)) || urgent
    }
    return urgent
  }

  /**
   * Flushes at once when urgent (a state change, a notification), tells the ledger what changed, then sets the
   * one alarm. A ledger that cannot be told is retried from the alarm within a minute (and fails the call when
   * `strict`).
   */
  private async settle(urgent: boolean, strict = false, now = Date.now()): Promise<void> {
    if (urgent || this.store.publishOwed()) await this.flush(now)
    let failure: unknown = null
    try {
      await this.syncLedger()
    } catch (error) {
      failure = error
      const snapshot = this.store.snapshot()
      console.error(`probe ${snapshot?.id}: telling the heartbeat ledger failed`, error)
      this.owePending()
    }
    await this.scheduleAlarm()
    if (failure !== null && strict) throw failure
  }

  private syncLedger(): Promise<void> {
    // One at a time, in order: each sends what is owed when it runs.
    const run = this.syncing.catch(() => undefined).then(() => this.syncLedgerOnce())
    this.syncing = run
    return run
  }

  private async syncLedgerOnce(): Promise<void> {
    const snapshot = this.store.snapshot()
    if (!snapshot) return
    const entry = ledgerEntryOf(snapshot, this.store.state(), this.store.heartbeat())
    const key = JSON.stringify(entry)
    if (entry === null || key === this.store.ledgerRegistered()) return
    const ledger = ledgerFor(this.env, snapshot.id)
    if (entry === 'removed') {
      // The ledger forgets the probe; its last ping stays visible here.
      const last = await ledger.remove(snapshot.id)
      const heartbeat = this.store.heartbeat()
      const lastPing = newerPing(heartbeat.lastPing, last)
      if (lastPing !== heartbeat.lastPing) this.store.setHeartbeat({ ...heartbeat, lastPing })
    } else await ledger.register(snapshot.id, entry)
    this.store.setLedgerRegistered(key)
  }

  private flush(now: number): Promise<void> {
    // One flush at a time: the next one takes what arrived meanwhile.
    this.flushing = this.flushing.then(() => this.flushOnce(now))
    return this.flushing
  }

  /** Writes what D1 is owed at `now` (the alarm's moment, or the call's), then the queue and the hub. */
  private async flushOnce(now: number): Promise<void> {
    const snapshot = this.store.snapshot()
    if (snapshot) await flushOwed(this.store, this.results, this.env, snapshot, now)
  }

  /** Owes the hub the probe as it stands, for a change of enabled alone. */
  private oweCurrent(snapshot: MonitorSnapshot): void {
    this.store.owePublish(currentChange(this.store, snapshot))
  }

  /** Sets the one alarm for the earliest deadline, or none. */
  private async scheduleAlarm(): Promise<void> {
    if (!this.store.snapshot()) return
    const next = nextDeadline(this.store)
    if (next === this.store.alarmAt()) return
    this.store.setAlarmAt(next)
    if (next === null) await this.ctx.storage.deleteAlarm()
    else await this.ctx.storage.setAlarm(next)
  }

  private liveState(): LiveState {
    return liveStateOf(this.store)
  }
}

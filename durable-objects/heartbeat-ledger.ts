import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../src/env'
import { sha256Hex, timingSafeEqual } from '../src/lib/hash'
import type { HeartbeatLedgerRpc, LedgerEntry, LedgerVerdict } from '../src/probes/heartbeat/ledger-api'
import { flushLedgerToD1 } from '../src/probes/heartbeat/ledger-flush'
import { LedgerStore } from '../src/probes/heartbeat/ledger-store'
import type { LastPing, PingSignal } from '../src/probes/monitor/api'

/** Counts wait at most this long for D1. */

const FLUSH_DELAY_MS = 60_000
/** Compared against when a probe id has no entry: not a hex digest, so no secret's hash equals it. */
const NO_SECRET_HASH = 'x'.repeat(64)
/** Secrets whose hash this object keeps (see `hashOf`); past this many the memory starts again empty. */
const KNOWN_SECRETS_LIMIT = 10_000

/**
 * One shard of the heartbeat ledger (named `shard-<n>`, see ledger-api.ts): it records the plain success pings of
 * its up heartbeats, so a fleet's steady pings land on a few warm objects instead of waking one monitor each.
 * Each probe's monitor registers what the ledger needs (secret hash, active, forward) and sees every other ping.
 * An id without an entry (unknown, or archived: the monitor removes it) is refused here, so no ping wakes a
 * monitor that is not a live heartbeat's.
 * The counts reach D1 from this object's alarm, at most a minute later, in one batch for all its probes.
 */
export class HeartbeatLedger extends DurableObject<Env> implements HeartbeatLedgerRpc {
  private readonly store: LedgerStore
  private alarmSet = false
  /** Secret → SHA-256 hex, for secrets that matched an entry: a steady heartbeat is hashed once per wake. */
  private readonly knownSecrets = new Map<string, string>()

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.store = new LedgerStore(ctx.storage.sql)
    ctx.blockConcurrencyWhile(async () => {
      this.alarmSet = (await ctx.storage.getAlarm()) !== null
      if (this.store.hasPending()) await this.armAlarm()
    })
  }

  async ping(
    probeId: string,
    secret: string,
    signal: PingSignal,
    exitStatus: number | null,
    body: string,
    at: number,
  ): Promise<LedgerVerdict> {
    const entry = this.store.entry(probeId)
    // One path for every refusal: hashed and compared whatever the outcome (an id without an entry against a hash
    // no secret has), so an unknown id, a wrong secret, a paused and an archived probe take as long as a match
    // (only a secret that matched before skips the hashing, and a caller holding it learns nothing from that).
    const hash = await this.hashOf(secret)
    const matches = timingSafeEqual(hash, entry?.hash ?? NO_SECRET_HASH)
    // Read again: the entry may have changed while the hash was computed.
    const current = this.store.entry(probeId)
    if (!entry || !current || !matches || current.hash !== entry.hash || !current.active) return 'unknown'
    this.rememberSecret(secret, hash)
    if (current.forward || signal !== 'success') return 'forward'
    this.store.record(probeId, { at, exitStatus, body })
    await this.armAlarm()
    return 'recorded'
  }

  async register(probeId: string, entry: LedgerEntry): Promise<void> {
    this.store.register(probeId, entry)
  }

  async remove(probeId: string): Promise<LastPing | null> {
    return this.store.remove(probeId)
  }

  async lastPing(probeId: string): Promise<LastPing | null> {
    return this.store.lastPing(probeId)
  }

  override async alarm(): Promise<void> {
    this.alarmSet = false
    const batch = this.store.take()
    if (batch) {
      try {
        await flushLedgerToD1(this.env.DB, batch)
        this.store.written(batch)
      } catch (error) {
        // Kept for the next flush, a minute on; the pings themselves are safe in this object's storage.
        console.error('heartbeat ledger: flush failed', error)
        this.store.failed(batch)
      }
    }
    if (this.store.hasPending()) await this.armAlarm()
  }

  /**
   * The secret's SHA-256 hex, from memory when it matched an entry before. Only matching secrets are kept, so a
   * caller without a probe's secret is always hashed: the shortcut says nothing about ids or entries.
   */
  private async hashOf(secret: string): Promise<string> {
    return this.knownSecrets.get(secret) ?? (await sha256Hex(secret))
  }

  private rememberSecret(secret: string, hash: string): void {
    if (this.knownSecrets.has(secret)) return
    if (this.knownSecrets.size >= KNOWN_SECRETS_LIMIT) this.knownSecrets.clear()
    this.knownSecrets.set(secret, hash)
  }

  private async armAlarm(): Promise<void> {
    if (this.alarmSet) return
    this.alarmSet = true
    await this.ctx.storage.setAlarm(Date.now() + FLUSH_DELAY_MS)
  }
}

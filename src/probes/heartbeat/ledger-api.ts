import type { Env } from '../../env'
import type { LastPing, PingSignal, ProbeLastResult } from '../monitor/api'

/**
 * How many HeartbeatLedger shards there are. Fixed: changing it moves probes to other shards, whose entries the
 * monitors would have to register again. 16 keeps each shard's flush (one D1 batch for all its probes) small and
 * spreads a busy fleet's pings over 16 single-threaded objects, while each stays warm under modest traffic.
 */
export const LEDGER_SHARDS = 16

/** What a probe's monitor tells the ledger of its shard. */
export interface LedgerEntry {
  /** SHA-256 hex of the heartbeat token's secret. */
  hash: string
  /** Enabled and not archived: an inactive probe's pings answer 404. */
  active: boolean
  /** The monitor must see every ping: its displayed state is not `up`, or a `/start` is open. */
  forward: boolean
}

/**
 * The ledger's answer to a ping: `recorded` (stored durably, counted by the ledger), `unknown` (no entry for the
 * id, a wrong secret or an inactive probe: 404), `forward` (the probe's monitor must record it).
 */
export type LedgerVerdict = 'recorded' | 'unknown' | 'forward'

/** A HeartbeatLedger shard, as the ping route and the monitors see it. */
export interface HeartbeatLedgerRpc {
  /**
   * Records a plain success ping of an up probe; anything else is `unknown` or `forward`. The ping comes as plain
   * values, not a `Ping` object: an object argument made each call measurably slower (docs/performance.md, the
   * heartbeat ping).
   */
  ping(
    probeId: string,
    secret: string,
    signal: PingSignal,
    exitStatus: number | null,
    body: string,
    at: number,
  ): Promise<LedgerVerdict>
  /** Sets the probe's entry (the monitor calls it whenever the entry would change). */
  register(probeId: string, entry: LedgerEntry): Promise<void>
  /** Forgets the probe (archived); its pending counts still reach D1. Answers the last ping it recorded. */
  remove(probeId: string): Promise<LastPing | null>
  /** The last ping the ledger recorded for the probe, if any. */
  lastPing(probeId: string): Promise<LastPing | null>
}

/** The shard holding a probe: FNV-1a of its id, so every caller agrees without a lookup. */
export function ledgerShard(probeId: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < probeId.length; i++) {
    hash ^= probeId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % LEDGER_SHARDS
}

/** The ledger shard of a probe. */
export function ledgerFor(env: Env, probeId: string) {
  return env.HEARTBEAT_LEDGER.getByName(`shard-${ledgerShard(probeId)}`)
}

/** What a plain success ping says as a result. */
export function pingDetail(exitStatus: number | null): string {
  return exitStatus === null ? 'ping received' : `exit status ${exitStatus}`
}

/** The result a ledger-recorded ping stands for (a success, untimed). */
export function pingResult(ping: LastPing): ProbeLastResult {
  return { at: ping.at, outcome: 'up', latencyMs: null, detail: pingDetail(ping.exitStatus) }
}

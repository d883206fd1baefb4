import { isActive, type MonitorSnapshot } from '../monitor/api'
import type { MonitorContext } from '../monitor/context'
import type { MonitorState } from '../monitor/state-machine'
import type { HeartbeatMemory } from '../monitor/store'
import { deadlineAfter, heartbeatTimesOf, newerPing, pingTime } from './deadlines'
import { type LedgerEntry, ledgerFor } from './ledger-api'

/**
 * What the heartbeat ledger must hold of this probe: an entry while it is not archived (`forward` while the
 * monitor must see every ping), `removed` once archived, null for probes that are no heartbeat.
 */
function ledgerEntryOf(
  snapshot: MonitorSnapshot,
  state: MonitorState,
  heartbeat: HeartbeatMemory,
): LedgerEntry | 'removed' | null {
  if (snapshot.type !== 'heartbeat' || snapshot.heartbeatTokenHash === null) return null
  if (snapshot.archived) return 'removed'
  return {
    hash: snapshot.heartbeatTokenHash,
    active: snapshot.enabled,
    forward: state.state !== 'up' || heartbeat.startedAt !== null,
  }
}

/** Tells the probe's ledger shard what it must hold of the probe, when that changed since it was last told. */
export function syncLedger(monitor: MonitorContext): Promise<void> {
  // One at a time, in order: each sends what is owed when it runs.
  const run = monitor.syncing.catch(() => undefined).then(() => syncLedgerOnce(monitor))
  monitor.syncing = run
  return run
}

async function syncLedgerOnce(monitor: MonitorContext): Promise<void> {
  const { store, env } = monitor
  const snapshot = store.snapshot()
  if (!snapshot) return
  const entry = ledgerEntryOf(snapshot, store.state(), store.heartbeat())
  const key = JSON.stringify(entry)
  if (entry === null || key === store.ledgerRegistered()) return
  const ledger = ledgerFor(env, snapshot.id)
  if (entry === 'removed') {
    // The ledger forgets the probe; its last ping stays visible here.
    const last = await ledger.remove(snapshot.id)
    const heartbeat = store.heartbeat()
    const lastPing = newerPing(heartbeat.lastPing, last)
    if (lastPing !== heartbeat.lastPing) store.setHeartbeat({ ...heartbeat, lastPing })
  } else await ledger.register(snapshot.id, entry)
  store.setLedgerRegistered(key)
}

/**
 * The ledger records the plain pings of an up heartbeat: a due deadline first asks it for the probe's last
 * ping, and a newer one moves the deadline's base (no miss; the alarm re-arms for the new deadline).
 */
export async function catchUpWithLedger(
  monitor: MonitorContext,
  snapshot: MonitorSnapshot,
  now: number,
): Promise<void> {
  const { store, env } = monitor
  const times = heartbeatTimesOf(snapshot)
  const { base } = store.heartbeat()
  if (!times || !isActive(snapshot) || base === null) return
  const deadline = deadlineAfter(times, base)
  if (deadline === null || deadline > now) return
  const last = pingTime(await ledgerFor(env, snapshot.id).lastPing(snapshot.id))
  const heartbeat = store.heartbeat()
  if (last !== null && heartbeat.base !== null && last > heartbeat.base)
    store.setHeartbeat({ ...heartbeat, base: last })
}

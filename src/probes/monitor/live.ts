import type { Env } from '../../env'
import { newerPing, pingTime } from '../heartbeat/deadlines'
import { ledgerFor, pingResult } from '../heartbeat/ledger-api'
import type { LiveState } from './api'
import type { MonitorStore } from './store'

/** The live state, with the newer of the monitor's and the ledger's last ping (and the check it stands for). */
export async function liveWithLedger(store: MonitorStore, env: Env): Promise<LiveState | null> {
  const snapshot = store.snapshot()
  if (!snapshot) return null
  const own = liveStateOf(store)
  if (snapshot.type !== 'heartbeat') return own
  const recorded = await ledgerFor(env, snapshot.id)
    .lastPing(snapshot.id)
    .catch((error: unknown) => {
      // The monitor's own view is still an answer.
      console.error(`probe ${snapshot.id}: reading the heartbeat ledger failed`, error)
      return null
    })
  const lastPing = newerPing(own.lastPing, recorded)
  const at = pingTime(lastPing)
  // Only the ledger's pings (plain successes) are newer than the monitor's own last check.
  if (lastPing === null || at === null || lastPing.signal !== 'success' || at <= (own.lastCheckedAt ?? -1))
    return { ...own, lastPing }
  return { ...own, lastPing, lastCheckedAt: at, lastResult: pingResult(lastPing) }
}

/** The live state the monitor holds. */
export function liveStateOf(store: MonitorStore): LiveState {
  const state = store.state()
  return {
    state: state.state,
    consecutiveFailures: state.consecutiveFailures,
    lastResult: state.lastResult,
    lastCheckedAt: state.lastCheckedAt,
    lastChangedAt: state.lastChangedAt,
    lastPing: store.heartbeat().lastPing,
  }
}

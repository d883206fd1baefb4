import type { Env } from '../../env'
import { ResultsStore } from './results-store'
import { MonitorStore } from './store'

/**
 * One ProbeMonitor instance as its concerns see it: its storage (the state, its raw results, the alarm) and the
 * work in flight, which is serialised per instance and in memory only (a restarted object starts with none).
 */
export interface MonitorContext {
  readonly env: Env
  readonly storage: DurableObjectStorage
  readonly store: MonitorStore
  readonly results: ResultsStore
  /** The flush under way; the next one chains after it. */
  flushing: Promise<void>
  /** The ledger sync under way; the next one chains after it, whatever its outcome. */
  syncing: Promise<void>
  /** The maintenance windows' read under way, which every caller meanwhile waits for; null when none. */
  readingWindows: Promise<void> | null
}

export function monitorContext(storage: DurableObjectStorage, env: Env): MonitorContext {
  return {
    env,
    storage,
    store: new MonitorStore(storage),
    results: new ResultsStore(storage),
    flushing: Promise.resolve(),
    syncing: Promise.resolve(),
    readingWindows: null,
  }
}

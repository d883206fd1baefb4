import type { Env } from '../../env'
import { WATCH_HUB_NAME } from '../watch/request'
import type { MonitorSnapshot, ProbeState, WatchChange } from './api'
import type { MonitorStore } from './store'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** What the WatchHub is told of a change of the probe to `state`. */
export function watchChange(
  snapshot: MonitorSnapshot,
  state: ProbeState,
  lastChangedAt: number | null,
): WatchChange {
  return {
    id: snapshot.id,
    name: snapshot.name,
    state,
    enabled: snapshot.enabled,
    lastChangedAt: iso(lastChangedAt),
    targetKind: snapshot.targetKind,
    targetId: snapshot.targetId,
  }
}

/** The probe as it stands, as a change for the hub. */
export function currentChange(store: MonitorStore, snapshot: MonitorSnapshot): WatchChange {
  const state = store.state()
  return watchChange(snapshot, state.state, state.lastChangedAt)
}

// Taken out before the await and put back on failure, so what is queued meanwhile is neither lost nor sent twice.
export async function sendNotifications(store: MonitorStore, env: Env): Promise<void> {
  const messages = store.takeNotifications()
  if (messages.length === 0) return
  try {
    await env.JOBS.sendBatch(messages.map((body) => ({ body })))
  } catch (error) {
    store.addNotifications(messages)
    throw error
  }
}

// Every owed change, one by one and in order, so the hub sees each (a blip is not merged into its end).
export async function publish(store: MonitorStore, env: Env, snapshot: MonitorSnapshot): Promise<void> {
  const owed = store.takePublishes(() => currentChange(store, snapshot))
  const hub = env.WATCH_HUB.getByName(WATCH_HUB_NAME)
  for (const [i, change] of owed.entries()) {
    try {
      await hub.publish(change)
    } catch (error) {
      store.returnPublishes(owed.slice(i))
      throw error
    }
  }
}

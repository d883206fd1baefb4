import { db } from '../../db/client'
import type { Env } from '../../env'
import { applyAutoIncidentChange, autoIncidentChange } from '../../status-pages/incidents/auto'
import type { StateTransition } from './state-machine'
import type { MonitorStore } from './store'

/** Owes the status pages' automatic incidents a displayed change they act on; `covered` by maintenance at it. */
export function oweAutoIncident(store: MonitorStore, change: StateTransition, covered: boolean): void {
  const owed = autoIncidentChange(change, covered)
  if (owed) store.oweIncidentChange(owed)
}

// In order, after the flush that wrote the changes: a change that fails stays owed, with those after it.
export async function settleAutoIncidents(store: MonitorStore, env: Env, probeId: string): Promise<void> {
  const owed = store.takeIncidentChanges()
  for (const [i, change] of owed.entries()) {
    try {
      await applyAutoIncidentChange(db(env.DB), env, probeId, change)
    } catch (error) {
      store.returnIncidentChanges(owed.slice(i))
      throw error
    }
  }
}

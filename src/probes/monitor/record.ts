import { changeNotification, notifyMessages } from '../../notifications/probes/jobs'
import { decideOnChange } from '../../notifications/probes/policy'
import { oweAutoIncident } from './auto-incidents'
import type { MonitorContext } from './context'
import { oweFlushBy, owePending } from './flush-owed'
import { coverAt, settleMaintenance, withheldBy } from './maintenance-withhold'
import { watchChange } from './outbox'
import { rollupDueAt } from './results-store'
import { type MonitorInput, reduce } from './state-machine'

/**
 * Runs one input through the state machine and keeps what it produced: the result's raw row (its rollups are
 * owed from the hour's end), an event and a notification decision per displayed change. True when the
 * displayed state changed.
 */
export function record(
  monitor: MonitorContext,
  input: MonitorInput,
  location: string | null = null,
): boolean {
  const { store, results } = monitor
  const snapshot = store.snapshot()
  if (!snapshot) return false
  // What maintenance withheld is settled as of the cover's end, before anything later is judged.
  const settled = settleMaintenance(store, input.at)
  const step = reduce(store.state(), input, snapshot.config)
  store.setState(step.next)
  if (input.kind === 'result') {
    const { at, outcome, latencyMs, detail } = input
    results.add({ at, outcome, latencyMs, detail, location })
    oweFlushBy(store, rollupDueAt(snapshot.id, at))
  }
  let memory = store.notifyMemory()
  for (const change of step.changes) {
    store.addEvent(change)
    store.owePublish(watchChange(snapshot, change.to, change.at))
    const cover = coverAt(store, change.at)
    oweAutoIncident(store, change, cover !== null)
    const decision = decideOnChange(memory, change, snapshot.notifyConfig, cover?.until ?? null)
    if (decision.notify || decision.withheld) {
      const notification = changeNotification(snapshot, change, memory)
      store.addNotifications(notifyMessages(snapshot, notification, withheldBy(decision, cover)))
    }
    memory = decision.memory
  }
  store.setNotifyMemory(memory)
  if (step.changes.length > 0 || settled) owePending(store)
  return step.changes.length > 0 || settled
}

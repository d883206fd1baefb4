import { type Coverage, coverageAt } from '../../maintenance/coverage'
import {
  notifyMessages,
  reminderNotification,
  stateChangedNotification,
  type WithheldBy,
} from '../../notifications/probes/jobs'
import { decideAfterMaintenance, decideOnRepeat, nextRepeatAt } from '../../notifications/probes/policy'
import type { MonitorStore } from './store'

/** Stretches of cover one settlement follows at most before waiting for the next alarm. */
const MAX_COVER_STEPS = 8

/** The maintenance cover at `at`, by the windows the monitor knows. */
export function coverAt(store: MonitorStore, at: number): Coverage | null {
  return coverageAt(store.knownWindows()?.windows ?? [], at)
}

/** The marker of a withheld notification's messages; undefined for one that goes out. */
export function withheldBy(decision: { withheld?: true }, cover: Coverage | null): WithheldBy | undefined {
  if (!decision.withheld || cover === null) return undefined
  return { title: cover.title, until: new Date(cover.until).toISOString() }
}

/**
 * Once the maintenance cover of withheld notifications ended by `at`, queues the one notification owed (the
 * state then against the state before cover), stamped at the cover's end. Idempotent: the memory forgets what
 * was withheld in the same write that queues the notification.
 */
export function settleMaintenance(store: MonitorStore, at: number): boolean {
  const snapshot = store.snapshot()
  if (!snapshot) return false
  let memory = store.notifyMemory()
  let queued = false
  for (let step = 0; step < MAX_COVER_STEPS; step++) {
    const held = memory.withheld ?? null
    if (held === null || held.until > at) break
    const cover = coverAt(store, held.until)
    if (cover) {
      memory = { ...memory, withheld: { ...held, until: cover.until } }
      continue
    }
    const state = store.state()
    const after = decideAfterMaintenance(
      memory,
      state.state,
      held.until,
      state.lastResult,
      snapshot.notifyConfig,
    )
    memory = after.memory
    if (after.notify && after.change) {
      const notification = stateChangedNotification(snapshot, after.change, after.downSince)
      store.addNotifications(notifyMessages(snapshot, notification))
      queued = true
    }
  }
  store.setNotifyMemory(memory)
  return queued
}

/** Queues the reminder owed while the probe stays down (withheld under cover); true when one was queued. */
export function remindWhileDown(store: MonitorStore, now: number): boolean {
  const snapshot = store.snapshot()
  if (!snapshot) return false
  const memory = store.notifyMemory()
  const due = nextRepeatAt(memory, store.state().state, snapshot.notifyConfig)
  if (due === null || due > now) return false
  const cover = coverAt(store, now)
  const decision = decideOnRepeat(memory, now, snapshot.notifyConfig, cover?.until ?? null)
  store.setNotifyMemory(decision.memory)
  if (!decision.notify && !decision.withheld) return false
  const notification = reminderNotification(snapshot, decision.memory, now, store.state().lastResult)
  store.addNotifications(notifyMessages(snapshot, notification, withheldBy(decision, cover)))
  return true
}

/** Once the windows changed, what is withheld waits for the cover's new end (`now` at the latest when none covers). */
export function coverChanged(store: MonitorStore, now: number): void {
  const memory = store.notifyMemory()
  const held = memory.withheld ?? null
  if (held === null) return
  // Cover may now end sooner (a window removed) or later: the settlement waits for the new end.
  const until = coverAt(store, now)?.until ?? Math.min(held.until, now)
  store.setNotifyMemory({ ...memory, withheld: { ...held, until } })
}

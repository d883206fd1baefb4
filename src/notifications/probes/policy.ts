import type { ProbeNotifyConfig } from '../../probes/config'
import type { ProbeLastResult, ProbeState } from '../../probes/monitor/api'

/**
 * When a probe's notifications go out. Pure: the ProbeMonitor keeps the memory in its storage and asks on each
 * displayed-state change (never for changes while flapping) and when a reminder falls due.
 *
 * - Notified: entering `down`, `degraded` or `flapping` (from any state, `paused` included: a heartbeat never
 *   pinged goes down), and entering `up` from `down`, `degraded` or `flapping`. Not notified: `paused` → `up` (a
 *   new or resumed probe's first good result) and any change to `paused` (the operator's own pause or archive).
 * - `cooldownSeconds` is the least time after the last sent notification before the next; `maxPerHour` caps the
 *   notifications sent in any 60 minutes (reminders included). A change held back is not sent later.
 * - Two changes pass the cooldown: entering `flapping` (the one message of a flap episode, which needs a quiet
 *   window to end), and the all-clear, a change to `up` when the last message sent announced a problem (down,
 *   degraded or flapping) — an operator told "down" always hears "up". The all-clear passes `maxPerHour` too
 *   (and counts toward it), so any 60 minutes hold at most maxPerHour + 1 notifications.
 * - Repeats: while down, a reminder every `repeatWhileDownMinutes` after the episode began or the last reminder
 *   fell due; a reminder the cooldown or the cap holds back is skipped, not postponed.
 */
export interface NotifyMemory {
  /** When notifications were sent (ms), only those of the last 60 minutes. */
  sentAt: number[]
  /** When the last notification was sent (ms). */
  lastSentAt: number | null
  /** The state the last sent notification announced; null after a pause (nothing stays announced). */
  lastNotifiedState: ProbeState | null
  /** When the current down episode began (ms); null while not down. */
  downSince: number | null
  /** When the current down episode's last reminder fell due (ms); null before the first. */
  lastRepeatAt: number | null
}

export const EMPTY_NOTIFY_MEMORY: NotifyMemory = {
  sentAt: [],
  lastSentAt: null,
  lastNotifiedState: null,
  downSince: null,
  lastRepeatAt: null,
}

/** A displayed-state change, stamped with when it happened (ms) and the result that caused it. */
export type StateChange = { from: ProbeState; to: ProbeState; at: number; result: ProbeLastResult | null }

export interface NotifyDecision {
  notify: boolean
  memory: NotifyMemory
}

const HOUR_MS = 60 * 60 * 1000
const PROBLEMS: readonly ProbeState[] = ['down', 'degraded', 'flapping']

function isNotable({ from, to }: StateChange): boolean {
  if (from === to || to === 'paused') return false
  return to === 'up' ? PROBLEMS.includes(from) : true
}

function withinCooldown(memory: NotifyMemory, at: number, config: ProbeNotifyConfig): boolean {
  return (
    config.cooldownSeconds > 0 &&
    memory.lastSentAt !== null &&
    at - memory.lastSentAt < config.cooldownSeconds * 1000
  )
}

function lastHour(sentAt: readonly number[], at: number): number[] {
  return sentAt.filter((sent) => sent > at - HOUR_MS)
}

function sent(memory: NotifyMemory, at: number, state: ProbeState): NotifyMemory {
  return {
    ...memory,
    sentAt: [...lastHour(memory.sentAt, at), at],
    lastSentAt: Math.max(at, memory.lastSentAt ?? at),
    lastNotifiedState: state,
  }
}

/** Whether a displayed-state change is notified, and the memory to keep after it. */
export function decideOnChange(
  memory: NotifyMemory,
  change: StateChange,
  config: ProbeNotifyConfig,
): NotifyDecision {
  if (change.from === change.to) return { notify: false, memory }
  const episode: NotifyMemory = {
    ...memory,
    sentAt: lastHour(memory.sentAt, change.at),
    downSince: change.to === 'down' ? change.at : null,
    lastRepeatAt: null,
    lastNotifiedState: change.to === 'paused' ? null : memory.lastNotifiedState,
  }
  if (!isNotable(change)) return { notify: false, memory: episode }
  const allClear =
    change.to === 'up' && memory.lastNotifiedState !== null && PROBLEMS.includes(memory.lastNotifiedState)
  const passesCooldown = allClear || change.to === 'flapping' || !withinCooldown(memory, change.at, config)
  const passesCap = allClear || episode.sentAt.length < config.maxPerHour
  if (!passesCooldown || !passesCap) return { notify: false, memory: episode }
  return { notify: true, memory: sent(episode, change.at, change.to) }
}

/** When the next still-down reminder falls due (ms), or null when none will. */
export function nextRepeatAt(
  memory: NotifyMemory,
  state: ProbeState,
  config: ProbeNotifyConfig,
): number | null {
  if (config.repeatWhileDownMinutes <= 0 || state !== 'down' || memory.downSince === null) return null
  return (memory.lastRepeatAt ?? memory.downSince) + config.repeatWhileDownMinutes * 60_000
}

/** Whether a still-down reminder goes out at `now`, and the memory to keep after it (an early call is a no-op). */
export function decideOnRepeat(memory: NotifyMemory, now: number, config: ProbeNotifyConfig): NotifyDecision {
  const due = nextRepeatAt(memory, 'down', config)
  if (due === null || now < due) return { notify: false, memory }
  const reminded: NotifyMemory = { ...memory, sentAt: lastHour(memory.sentAt, now), lastRepeatAt: now }
  if (withinCooldown(memory, now, config) || reminded.sentAt.length >= config.maxPerHour)
    return { notify: false, memory: reminded }
  return { notify: true, memory: sent(reminded, now, 'down') }
}

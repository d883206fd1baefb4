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
 * - Maintenance: a notification that would go out while a maintenance window covers the probe is withheld (logged,
 *   not sent, not counted as sent). When cover ends, the state then is compared with the state before the first
 *   withheld change: if it differs, one notification of the state now goes out, judged like any change.
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
  /** What maintenance withheld since cover began; null (or absent, in memory kept before windows) when nothing. */
  withheld?: Withheld | null
}

/** Notifications withheld during maintenance, waiting for cover to end. */
export interface Withheld {
  /** The state before the first withheld change (or while the first withheld reminder fell due). */
  from: ProbeState
  /** When the down episode the operator heard of began, for an all-clear after cover; null when none. */
  downSince: number | null
  /** When cover ends (ms), as the windows said at the last withheld notification. */
  until: number
}

export const EMPTY_NOTIFY_MEMORY: NotifyMemory = {
  sentAt: [],
  lastSentAt: null,
  lastNotifiedState: null,
  downSince: null,
  lastRepeatAt: null,
  withheld: null,
}

/** A displayed-state change, stamped with when it happened (ms) and the result that caused it. */
export type StateChange = { from: ProbeState; to: ProbeState; at: number; result: ProbeLastResult | null }

export interface NotifyDecision {
  notify: boolean
  /** Set when the notification would go out but maintenance withholds it: log it, send nothing. */
  withheld?: true
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

/** The decision for a notification maintenance covers until `until`: withheld, remembering what came before. */
function withhold(
  before: NotifyMemory,
  after: NotifyMemory,
  from: ProbeState,
  until: number,
): NotifyDecision {
  const held = before.withheld ?? null
  const withheld: Withheld = {
    from: held?.from ?? from,
    downSince: held ? held.downSince : before.downSince,
    until: Math.max(held?.until ?? until, until),
  }
  return { notify: false, withheld: true, memory: { ...after, withheld } }
}

/**
 * Whether a displayed-state change is notified, and the memory to keep after it. `coveredUntil` is when the
 * maintenance covering the change ends, null when none covers it.
 */
export function decideOnChange(
  memory: NotifyMemory,
  change: StateChange,
  config: ProbeNotifyConfig,
  coveredUntil: number | null = null,
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
  if (coveredUntil !== null) return withhold(memory, episode, change.from, coveredUntil)
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

/**
 * Whether a still-down reminder goes out at `now`, and the memory to keep after it (an early call is a no-op);
 * `coveredUntil` as for a change.
 */
export function decideOnRepeat(
  memory: NotifyMemory,
  now: number,
  config: ProbeNotifyConfig,
  coveredUntil: number | null = null,
): NotifyDecision {
  const due = nextRepeatAt(memory, 'down', config)
  if (due === null || now < due) return { notify: false, memory }
  const reminded: NotifyMemory = { ...memory, sentAt: lastHour(memory.sentAt, now), lastRepeatAt: now }
  if (withinCooldown(memory, now, config) || reminded.sentAt.length >= config.maxPerHour)
    return { notify: false, memory: reminded }
  if (coveredUntil !== null) return withhold(memory, reminded, 'down', coveredUntil)
  return { notify: true, memory: sent(reminded, now, 'down') }
}

/** The one notification owed when maintenance cover ends, if any: the change from before cover to now. */
export interface AfterMaintenance extends NotifyDecision {
  change: StateChange | null
  /** When the down episode the notification speaks of began. */
  downSince: number | null
}

/**
 * Settles what maintenance withheld once cover ended at `at`: when the state now differs from the state before
 * the first withheld notification, one notification of the state now, judged like a change from that state
 * (cooldown, cap, the all-clear passing both); nothing when it is the same, or when nothing was withheld.
 */
export function decideAfterMaintenance(
  memory: NotifyMemory,
  state: ProbeState,
  at: number,
  result: ProbeLastResult | null,
  config: ProbeNotifyConfig,
): AfterMaintenance {
  const held = memory.withheld ?? null
  const cleared: NotifyMemory = { ...memory, withheld: null }
  if (held === null || held.from === state)
    return { notify: false, memory: cleared, change: null, downSince: null }
  const change: StateChange = { from: held.from, to: state, at, result }
  const downSince = state === 'down' ? memory.downSince : held.from === 'down' ? held.downSince : null
  const quiet = { notify: false, memory: cleared, change: null, downSince: null }
  if (!isNotable(change)) return quiet
  const allClear =
    state === 'up' && memory.lastNotifiedState !== null && PROBLEMS.includes(memory.lastNotifiedState)
  const recent = lastHour(memory.sentAt, at)
  const passesCooldown = allClear || state === 'flapping' || !withinCooldown(memory, at, config)
  const passesCap = allClear || recent.length < config.maxPerHour
  if (!passesCooldown || !passesCap) return quiet
  return { notify: true, memory: sent(cleared, at, state), change, downSince }
}

import type { ProbeType } from '../../probes/config'
import type { MonitorSnapshot, ProbeLastResult, ProbeState, ProbeTargetKind } from '../../probes/monitor/api'
import type { NotifyMemory, StateChange } from './policy'

/** What a probe notification says: the JSON body of a probe webhook, and what its email tells in words. */
export type ProbeNotification = {
  event: 'probe.state_changed' | 'probe.still_down'
  probe: {
    id: string
    name: string
    type: ProbeType
    targetKind: ProbeTargetKind
    targetId: string | null
    target: string
  }
  previousState: ProbeState
  state: ProbeState
  /** When the change happened, or when the reminder fell due. */
  at: string
  result: ProbeLastResult | null
  /** When the down episode began: set when entering down, while down, and on the change that ends it. */
  downSince: string | null
}

/**
 * One delivery of one notification to one target: the probe's webhook, one email address, or the installation's
 * operational notifications (a domain's own cert probe without targets of its own), or one notification channel.
 */
export type ProbeNotifyMessage = {
  type: 'probe.notify'
  probeId: string
  target: 'webhook' | `email:${string}` | `channel:${string}` | 'operational'
  notification: ProbeNotification
  /** Set when maintenance withholds it: the delivery is logged as withheld and nothing is sent. */
  withheld?: WithheldBy
}

/** The maintenance window a notification was withheld by, and when its cover ends. */
export interface WithheldBy {
  title: string
  until: string
}

function probeOf(snapshot: MonitorSnapshot): ProbeNotification['probe'] {
  const { id, name, type, targetKind, targetId, target } = snapshot
  return { id, name, type, targetKind, targetId, target }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString()
}

/** The notification of a displayed-state change; `before` is the policy's memory before the change. */
export function changeNotification(
  snapshot: MonitorSnapshot,
  change: StateChange,
  before: NotifyMemory,
): ProbeNotification {
  const downSince = change.to === 'down' ? change.at : change.from === 'down' ? before.downSince : null
  return stateChangedNotification(snapshot, change, downSince)
}

/**
 * A `probe.state_changed` notification with the down time given; after maintenance it is the one from the state
 * before cover to the state at its end (`change.at`).
 */
export function stateChangedNotification(
  snapshot: MonitorSnapshot,
  change: StateChange,
  downSince: number | null,
): ProbeNotification {
  return {
    event: 'probe.state_changed',
    probe: probeOf(snapshot),
    previousState: change.from,
    state: change.to,
    at: new Date(change.at).toISOString(),
    result: change.result,
    downSince: iso(downSince),
  }
}

/** The still-down reminder due at `at`, carrying the probe's latest result. */
export function reminderNotification(
  snapshot: MonitorSnapshot,
  memory: NotifyMemory,
  at: number,
  result: ProbeLastResult | null,
): ProbeNotification {
  return {
    event: 'probe.still_down',
    probe: probeOf(snapshot),
    previousState: 'down',
    state: 'down',
    at: new Date(at).toISOString(),
    result,
    downSince: iso(memory.downSince),
  }
}

/**
 * The queue messages delivering a notification: the webhook when one is set, one per distinct email, then one per
 * channel. The cert probe a domain gets by itself, while nobody gave it targets, tells the installation's
 * operational recipients instead, so a domain's certificate trouble is heard without configuring anything.
 */
export function notifyMessages(
  snapshot: MonitorSnapshot,
  notification: ProbeNotification,
  withheld?: WithheldBy,
): ProbeNotifyMessage[] {
  const { webhookUrl, emails, channels } = snapshot.notifyConfig
  const targets: ProbeNotifyMessage['target'][] = [
    ...(webhookUrl ? (['webhook'] as const) : []),
    ...[...new Set(emails)].map((email) => `email:${email}` as const),
    // A monitor configured before channels existed holds a notifyConfig without them.
    ...(channels ?? []).map((id) => `channel:${id}` as const),
  ]
  if (targets.length === 0 && snapshot.type === 'cert' && snapshot.targetKind === 'domain')
    targets.push('operational')
  return targets.map((target) => ({
    type: 'probe.notify',
    probeId: snapshot.id,
    target,
    notification,
    ...(withheld ? { withheld } : {}),
  }))
}

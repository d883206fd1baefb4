import type { ProbeNotifyMessage } from '../probes/notify-jobs'
import type { AlertState } from './health'

/**
 * A node health alert: the JSON body of its webhook, and what its email tells in words. It goes out through the
 * probe notification delivery, to the targets of the node's probes (see health-alerts.ts).
 */
export interface NodeHealthNotification {
  event: 'node.health_changed'
  node: { id: string; name: string; agentUrl: string }
  /** What the previous alert announced (`ok` before the first). */
  previousState: AlertState
  state: AlertState
  /** The minute of the check that decided it. */
  at: string
  /** Why the node is not ok: the check's error or the agent's refusal; null on the all-clear. */
  error: string | null
  /** When the agent last answered a check. */
  lastSeenAt: string | null
}

/** One delivery of a node health alert to one target of a probe on the node, delivered like `probe.notify`. */
export type NodeAlertMessage = {
  type: 'node.alert'
  probeId: string
  target: ProbeNotifyMessage['target']
  notification: NodeHealthNotification
}

const HEADLINE: Record<AlertState, string> = {
  ok: 'is healthy again',
  unreachable: 'is unreachable',
  refusing: 'refuses its configuration',
}

/** The alert email's subject and plain text. */
export function nodeHealthEmail(notification: NodeHealthNotification): { subject: string; text: string } {
  const { node, previousState, state, at, error, lastSeenAt } = notification
  const lines = [
    `Node ${node.name} ${HEADLINE[state]} (it was ${previousState}).`,
    '',
    `Agent: ${node.agentUrl}`,
    `When: ${at}`,
    `Error: ${error ?? 'none'}`,
    `Agent last answered: ${lastSeenAt ?? 'never'}`,
  ]
  if (state === 'refusing') {
    lines.push(
      '',
      'The node keeps serving its previous configuration. Fix the cause, then push again (routes.reconcile).',
    )
  }
  lines.push('', `Node id: ${node.id}`)
  return { subject: `[NODE ${state.toUpperCase()}] ${node.name}`, text: lines.join('\n') }
}

import type { OperationalEvent } from '../notifications/operational'
import type { AlertState } from './health'

const PROBLEM: Record<Exclude<AlertState, 'ok'>, string> = {
  unreachable: 'is unreachable',
  refusing: 'refuses its configuration',
}

/** The operational event key of a node's health. */
export function nodeHealthKey(nodeId: string): string {
  return `node:${nodeId}`
}

/** The `node.unhealthy` event announcing a node's problem: what the check found, and what to do. */
export function nodeHealthEvent(
  node: { id: string; name: string; agentUrl: string },
  state: Exclude<AlertState, 'ok'>,
  error: string | null,
  lastSeenAt: Date | null,
): OperationalEvent {
  const lines = [
    `Agent: ${node.agentUrl}`,
    `Error: ${error ?? 'none'}`,
    `Agent last answered: ${lastSeenAt?.toISOString() ?? 'never'}`,
  ]
  if (state === 'refusing')
    lines.push(
      'The node keeps serving its previous configuration. Fix the cause, then push again (routes.reconcile).',
    )
  return {
    kind: 'node.unhealthy',
    key: nodeHealthKey(node.id),
    subject: `Node ${node.name} ${PROBLEM[state]}`,
    detail: lines.join('\n'),
    link: '/fleet',
  }
}

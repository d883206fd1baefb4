import type { Health } from '../agent-contract/v1'
import type { nodeHealth } from '../db/schema/fleet'
import type { nodeEdgeVersions } from '../db/schema/routes'
import type { NodeHealth } from './schemas'

// A node's health, pure: what a check makes of the stored row, what the API shows, and when an alert goes out.

export type NodeHealthRecord = typeof nodeHealth.$inferSelect
export type EdgeVersionRecord = Pick<typeof nodeEdgeVersions.$inferSelect, 'state' | 'failure' | 'lastError'>
export type AlertState = 'ok' | 'unreachable' | 'refusing'

/** Consecutive failed checks (a minute apart) before an unreachable node is announced. */
export const UNREACHABLE_ALERT_AFTER = 3
/** The least time between two problem alerts of a node; one held back goes out at the first check after it. */
export const ALERT_COOLDOWN_MS = 10 * 60 * 1000

/** What one check found: the agent's answer, or why there was no usable one. */
export type CheckResult = { kind: 'answered'; health: Health } | { kind: 'failed'; error: string }

/** The health of a node never checked. */
export const UNKNOWN_HEALTH: NodeHealth = {
  state: 'unknown',
  checkedAt: null,
  lastSeenAt: null,
  agentVersion: null,
  appliedConfigVersion: null,
  error: null,
}

function refusing(edge: EdgeVersionRecord | null): edge is EdgeVersionRecord {
  return edge?.state === 'failed' && edge.failure === 'refused'
}

/**
 * The health `nodes.get` and `nodes.list` show: the last check, and `refusing` (with the refusal) when the agent
 * answers but refused the node's newest config.
 */
export function healthOf(
  check: Pick<
    NodeHealthRecord,
    'checkState' | 'checkedAt' | 'lastSeenAt' | 'agentVersion' | 'appliedConfigVersion' | 'error'
  > | null,
  edge: EdgeVersionRecord | null,
): NodeHealth {
  if (!check) return UNKNOWN_HEALTH
  const answered = check.checkState === 'ok'
  return {
    state: answered && refusing(edge) ? 'refusing' : check.checkState,
    checkedAt: check.checkedAt.toISOString(),
    lastSeenAt: check.lastSeenAt?.toISOString() ?? null,
    agentVersion: check.agentVersion,
    appliedConfigVersion: check.appliedConfigVersion,
    error: answered && refusing(edge) ? edge.lastError : check.error,
  }
}

/**
 * The stored row after a check at `at` (the minute it ran for). A host node's agent must also reach its proxy;
 * a nameserver node's agent drives none.
 */
export function afterCheck(
  previous: NodeHealthRecord | null,
  node: { id: string; servesEdge: boolean },
  at: Date,
  result: CheckResult,
): NodeHealthRecord {
  const kept = {
    nodeId: node.id,
    checkedAt: at,
    alerted: previous?.alerted ?? null,
    alertedAt: previous?.alertedAt ?? null,
  }
  if (result.kind === 'failed') {
    return {
      ...kept,
      checkState: 'unreachable',
      lastSeenAt: previous?.lastSeenAt ?? null,
      agentVersion: previous?.agentVersion ?? null,
      appliedConfigVersion: previous?.appliedConfigVersion ?? null,
      error: result.error,
      consecutiveFailures: (previous?.consecutiveFailures ?? 0) + 1,
    }
  }
  const { health } = result
  const proxy =
    health.proxy.reachable || !node.servesEdge
      ? null
      : `the node agent answers, but its proxy (${health.proxy.name}) does not answer the agent`
  return {
    ...kept,
    checkState: proxy ? 'unreachable' : 'ok',
    lastSeenAt: at,
    agentVersion: health.agentVersion,
    appliedConfigVersion: health.appliedVersion,
    error: proxy,
    consecutiveFailures: proxy ? (previous?.consecutiveFailures ?? 0) + 1 : 0,
  }
}

type Problem = NonNullable<NodeHealthRecord['alerted']>

/** The problem a node has now, as its alerts announce it: unreachable for long enough, or refusing its config. */
function problemOf(row: NodeHealthRecord, edge: EdgeVersionRecord | null): Problem | null {
  if (row.checkState === 'unreachable')
    return row.consecutiveFailures >= UNREACHABLE_ALERT_AFTER ? 'unreachable' : null
  return refusing(edge) ? 'refusing' : null
}

/** An alert to send: the state it announces, the one announced before, and the row that remembers it. */
export interface AlertDecision {
  send: { previous: AlertState; state: AlertState } | null
  row: NodeHealthRecord
}

/**
 * Whether a check's row sends an alert. A problem (unreachable for UNREACHABLE_ALERT_AFTER checks in a row, or
 * refusing) is announced once, and again only when it changes; a problem alert within ALERT_COOLDOWN_MS of the
 * last one waits for a later check. The all-clear goes out, with no cooldown, at the first ok check after an
 * announced problem, so whoever heard of the problem hears that it ended.
 */
export function decideAlert(row: NodeHealthRecord, edge: EdgeVersionRecord | null): AlertDecision {
  const problem = problemOf(row, edge)
  const at = row.checkedAt
  if (problem && problem !== row.alerted) {
    const cooling = row.alertedAt !== null && at.getTime() - row.alertedAt.getTime() < ALERT_COOLDOWN_MS
    if (cooling) return { send: null, row }
    return {
      send: { previous: row.alerted ?? 'ok', state: problem },
      row: { ...row, alerted: problem, alertedAt: at },
    }
  }
  if (!problem && row.alerted && row.checkState === 'ok') {
    return { send: { previous: row.alerted, state: 'ok' }, row: { ...row, alerted: null } }
  }
  return { send: null, row }
}

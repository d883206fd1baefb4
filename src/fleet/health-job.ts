import { and, eq } from 'drizzle-orm'
import { type Db, db } from '../db/client'
import { nodeHealth, nodes } from '../db/schema/fleet'
import { nodeEdgeVersions } from '../db/schema/routes'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { openSecret } from '../lib/secrets'
import { clearOperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import { agentHealth, NodeAgentError } from '../outside/node-agent'
import { bumpVersion, enqueueReconcile } from '../routes/versions'
import { afterCheck, type CheckResult, decideAlert, type NodeHealthRecord } from './health'
import type { NodeHealthCheckMessage } from './health-cron'
import { nodeHealthEvent, nodeHealthKey } from './health-event'

type EdgeVersion = typeof nodeEdgeVersions.$inferSelect

async function check(env: Env, node: { agentUrl: string; sealed: string }): Promise<CheckResult> {
  try {
    const agent = { agentUrl: node.agentUrl, agentSecret: await openSecret(env, node.sealed) }
    return { kind: 'answered', health: await agentHealth(agent) }
  } catch (error) {
    if (error instanceof NodeAgentError) return { kind: 'failed', error: error.message }
    throw error
  }
}

// Writes the check only over the row it was computed from, so of two checks racing (a retried job beside the
// next minute's) one is kept and only that one can alert.
async function store(
  database: Db,
  previous: NodeHealthRecord | null,
  row: NodeHealthRecord,
): Promise<boolean> {
  const written = previous
    ? await database
        .update(nodeHealth)
        .set(row)
        .where(and(eq(nodeHealth.nodeId, row.nodeId), eq(nodeHealth.checkedAt, previous.checkedAt)))
        .returning({ nodeId: nodeHealth.nodeId })
    : await database
        .insert(nodeHealth)
        .values(row)
        .onConflictDoNothing()
        .returning({ nodeId: nodeHealth.nodeId })
  return written.length > 0
}

/**
 * The agent answers but does not serve what the panel believes: the node's last push never reached it (its
 * version failed unanswered), or it serves an older version than it confirmed (it lost its state). Pushing the
 * node's routes again at a new version brings both back.
 */
function behind(edge: EdgeVersion | undefined, servedVersion: number): boolean {
  if (!edge) return false
  if (edge.state === 'failed') return edge.failure === 'unanswered'
  return edge.state === 'applied' && servedVersion < edge.applied
}

/**
 * `node.health-check`: calls the agent's `POST /v1/health`, records the check (a check for a minute already
 * recorded does nothing), raises or clears the node's `node.unhealthy` operational event as the check decides,
 * and pushes the node again when its agent answers behind. A failed check is an outcome, never a retry: the next
 * minute checks again.
 */
export async function nodeHealthCheckJob(message: NodeHealthCheckMessage, env: Env): Promise<JobOutcome> {
  const database = db(env.DB)
  const [found, checks, edges] = await database.batch([
    database
      .select({
        id: nodes.id,
        name: nodes.name,
        roles: nodes.roles,
        agentUrl: nodes.agentUrl,
        sealed: nodes.agentSecretSealed,
      })
      .from(nodes)
      .where(eq(nodes.id, message.nodeId)),
    database.select().from(nodeHealth).where(eq(nodeHealth.nodeId, message.nodeId)),
    database.select().from(nodeEdgeVersions).where(eq(nodeEdgeVersions.nodeId, message.nodeId)),
  ])
  const [node] = found
  const previous = checks[0] ?? null
  const at = new Date(message.scheduledAt)
  if (!node || (previous && previous.checkedAt >= at)) return { kind: 'done' }
  const result = await check(env, node)
  const [edge] = edges
  const checked = afterCheck(previous, { id: node.id, servesEdge: node.roles.includes('host') }, at, result)
  const decision = decideAlert(checked, edge ?? null)
  const row = decision.row
  if (!(await store(database, previous, row))) return { kind: 'done' }
  const sent = decision.send
  if (sent?.state === 'ok') await clearOperationalEvent(env, nodeHealthKey(node.id), at)
  else if (sent) {
    const error = sent.state === 'refusing' ? (edge?.lastError ?? null) : checked.error
    await raiseOperationalEvent(env, nodeHealthEvent(node, sent.state, error, checked.lastSeenAt), at)
  }
  if (result.kind === 'answered' && row.checkState === 'ok' && behind(edge, result.health.appliedVersion)) {
    await database.batch(bumpVersion(database, node.id, new Date(), 'everything'))
    await enqueueReconcile(env, node.id)
  }
  return { kind: 'done' }
}

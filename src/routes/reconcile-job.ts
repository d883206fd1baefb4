import { eq } from 'drizzle-orm'
import { MAX_VHOSTS_PER_BODY } from '../agent-contract/edge-changes'
import { db } from '../db/client'
import { nodes } from '../db/schema/fleet'
import { nodeEdgeVersions } from '../db/schema/routes'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/outcome'
import { openSecret } from '../lib/secrets'
import { NodeAgentError } from '../outside/node-agent'
import { changedEntriesOf, changedEntriesReads } from './changed-entries'
import { pushEdge } from './edge-push'
import { recordApplied, recordAttemptFailed, recordFailed } from './node-outcome'

export interface RouteReconcileMessage {
  type: 'route.reconcile'
  nodeId: string
  /** The node's desired configVersion when the job was queued; a job for an older one does nothing. */
  version: number
}

// The waits between the deliveries of one reconcile: an agent down or a proxy stopped is an error about 3
// minutes after the change (plus the time the attempts themselves took), so an attach waiting on the route
// fails within 5 minutes with the agent's words.
const RETRY_DELAYS_SECONDS = [15, 30, 60, 90] as const

/** Deliveries of one reconcile before an agent that does not answer (or answers 5xx/429) is an error. */
export const MAX_RECONCILE_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1

/** The wait before the next delivery after `attempts` failed ones. */
function reconcileRetryDelay(attempts: number): number {
  return RETRY_DELAYS_SECONDS[Math.min(attempts, RETRY_DELAYS_SECONDS.length) - 1] ?? RETRY_DELAYS_SECONDS[0]
}

// An agent that did not answer, failed inside or asked to slow down may take the same state later; a refusal
// (422), a wrong signature or an answer outside the contract will not change by retrying.
function passing(error: NodeAgentError): boolean {
  return error.status === null || error.status === 429 || error.status >= 500
}

/**
 * Takes the node to its newest version, if the message still carries it (`pushEdge`: what changed, or the whole
 * state), and records what the agent said: the routes of that version active, or the reason it was not applied.
 * `partSize` is the most vhosts in one body.
 */
export async function routeReconcileJob(
  message: RouteReconcileMessage,
  env: Env,
  attempts: number,
  partSize = MAX_VHOSTS_PER_BODY,
): Promise<JobOutcome> {
  const database = db(env.DB)
  // One batch, so the versions and what changed since the applied one are read at the same moment.
  const [versions, found, ...changes] = await database.batch([
    database.select().from(nodeEdgeVersions).where(eq(nodeEdgeVersions.nodeId, message.nodeId)),
    database
      .select({ agentUrl: nodes.agentUrl, agentSecretSealed: nodes.agentSecretSealed })
      .from(nodes)
      .where(eq(nodes.id, message.nodeId)),
    ...changedEntriesReads(database, message.nodeId, message.version),
  ])
  const [version] = versions
  const [node] = found
  if (!version || !node) return { kind: 'done' }
  if (message.version !== version.desired || version.applied >= version.desired) return { kind: 'done' }
  const target = { nodeId: message.nodeId, applied: version.applied, configVersion: version.desired }
  const changed = changedEntriesOf(version.applied, changes)
  const agent = { agentUrl: node.agentUrl, agentSecret: await openSecret(env, node.agentSecretSealed) }
  try {
    const { applied, scope } = await pushEdge(database, agent, target, changed, partSize)
    // A newer version already serving means this push was superseded; that version's job records it.
    if (applied.appliedVersion > target.configVersion) return { kind: 'done' }
    if (applied.appliedVersion < target.configVersion) {
      throw new NodeAgentError(
        200,
        `the node agent answered appliedVersion ${applied.appliedVersion} to configVersion ${target.configVersion}`,
      )
    }
    await recordApplied(
      database,
      message.nodeId,
      target.configVersion,
      applied.firewall.managed,
      applied.failed ?? [],
      scope,
    )
    return { kind: 'done' }
  } catch (error) {
    if (!(error instanceof NodeAgentError)) throw error
    if (passing(error) && attempts < MAX_RECONCILE_ATTEMPTS) {
      const reason = `attempt ${attempts} of ${MAX_RECONCILE_ATTEMPTS}: ${error.message}`
      await recordAttemptFailed(database, message.nodeId, target.configVersion, reason)
      return { kind: 'retry', delaySeconds: reconcileRetryDelay(attempts) }
    }
    // The routes show the error; the run ends dead on the jobs list too, where jobs.retry pushes again.
    if (passing(error)) {
      const reason = `not applied after ${attempts} attempts: ${error.message}`
      await recordFailed(database, message.nodeId, target.configVersion, reason, 'unanswered')
      return { kind: 'failed', error: reason }
    }
    await recordFailed(database, message.nodeId, target.configVersion, error.message, 'refused')
    return { kind: 'failed', error: error.message }
  }
}

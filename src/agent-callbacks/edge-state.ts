import { eq } from 'drizzle-orm'
import type { Context } from 'hono'
import { CALLBACK_PATHS, type EdgeStateAnswer } from '../agent-contract/v1'
import { nodeEdgeVersions } from '../db/schema/routes'
import type { AppEnv } from '../env'
import { selectLiveRoutes, toLiveRoutes } from '../routes/live-routes'
import { renderEdgeState } from '../routes/render'
import { authenticateCallback } from './authenticate'

export const EDGE_STATE_PATH = CALLBACK_PATHS.edgeState

/**
 * `GET /api/agent/v1/edge-state`: the node's current desired edge state, rendered exactly as the reconcile job
 * pushes it (its desired configVersion and every live route), so an agent that missed pushes — it was down, or
 * restarted from an older saved state — catches up by itself. `{ state: null }` while the node has no version.
 * Nothing is recorded: the panel learns what the node serves from its own next push.
 */
export async function answerEdgeState(c: Context<AppEnv>): Promise<Response> {
  const { nodeId, database } = await authenticateCallback(c, EDGE_STATE_PATH)
  // One batch, so the version and the routes it renders are read at the same moment.
  const [versions, live] = await database.batch([
    database.select().from(nodeEdgeVersions).where(eq(nodeEdgeVersions.nodeId, nodeId)),
    selectLiveRoutes(database, nodeId),
  ])
  const [version] = versions
  const answer: EdgeStateAnswer = {
    state: version ? renderEdgeState(version.desired, toLiveRoutes(live)) : null,
  }
  return c.json(answer)
}

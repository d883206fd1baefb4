import { eq } from 'drizzle-orm'
import type { Context } from 'hono'
import {
  EDGE_STATE_PARTS_CALLBACK,
  type EdgeStatePage,
  EdgeStatePageRequestSchema,
  MAX_VHOSTS_PER_BODY,
} from '../agent-contract/edge-changes'
import { nodeEdgeVersions } from '../db/schema/routes'
import type { AppEnv } from '../env'
import { forwardsOf, forwardsRead, vhostPageRead, vhostsOf } from '../routes/state-pages'
import { authenticateCallback, parseCallbackBody } from './authenticate'

export const EDGE_STATE_PARTS_PATH = EDGE_STATE_PARTS_CALLBACK

/**
 * `POST /api/agent/v2/edge-state-parts {cursor}`: one page of the node's current desired edge state, for an agent
 * catching up with a state too large for one body. Vhosts go in hostname order from the cursor (the last hostname
 * of the page before: a keyset, so a page costs its rows wherever it is), forwards on the first page; each page
 * carries the desired version it was read at, so an agent sees a change between two pages. Nothing is recorded.
 */
export async function answerEdgeStatePage(c: Context<AppEnv>): Promise<Response> {
  const { nodeId, raw, database } = await authenticateCallback(c, EDGE_STATE_PARTS_PATH)
  const { cursor } = parseCallbackBody(raw, EdgeStatePageRequestSchema)
  // One batch, so the version and the page it renders are read at the same moment; one row more than a page
  // says whether another follows.
  const [versions, vhostRows, forwardRows] = await database.batch([
    database.select().from(nodeEdgeVersions).where(eq(nodeEdgeVersions.nodeId, nodeId)),
    vhostPageRead(database, nodeId, cursor, MAX_VHOSTS_PER_BODY + 1),
    ...(cursor === null ? [forwardsRead(database, nodeId)] : []),
  ])
  const [version] = versions
  const page = vhostRows.slice(0, MAX_VHOSTS_PER_BODY)
  const more = vhostRows.length > MAX_VHOSTS_PER_BODY
  const answer: EdgeStatePage = version
    ? {
        configVersion: version.desired,
        vhosts: vhostsOf(page),
        forwards: forwardRows ? forwardsOf(forwardRows) : [],
        nextCursor: more ? (page.at(-1)?.hostname ?? null) : null,
      }
    : { configVersion: 0, vhosts: [], forwards: [], nextCursor: null }
  return c.json(answer)
}

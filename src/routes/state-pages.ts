import { and, asc, eq, gt, isNotNull, ne } from 'drizzle-orm'
import type { EdgeState } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { customHostnameSettings, customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { routes } from '../db/schema/routes'
import {
  claimOfRoute,
  customHostnameOfClaim,
  type RenderedRow,
  renderedColumns,
  settingsOfCustomHostname,
  toLiveRoute,
} from './live-routes'
import { vhostOf } from './render'

// The node's whole state read a page at a time, by keyset on (node, hostname): each page costs its rows whatever
// its place, and a change between two pages moves no hostname onto a page read already.

/** Up to `limit` of the node's live vhosts in hostname order, after `after` (null: from the first). */
export function vhostPageRead(db: Db, nodeId: string, after: string | null, limit: number) {
  return db
    .select({ hostname: routes.hostname, ...renderedColumns })
    .from(routes)
    .leftJoin(hostnameClaims, claimOfRoute)
    .leftJoin(customHostnames, customHostnameOfClaim)
    .leftJoin(customHostnameSettings, settingsOfCustomHostname)
    .where(
      and(
        eq(routes.nodeId, nodeId),
        ne(routes.status, 'removed'),
        after === null ? isNotNull(routes.hostname) : gt(routes.hostname, after),
      ),
    )
    .orderBy(asc(routes.hostname))
    .limit(limit)
}

/** The node's live forwards (at most one per proto and port, a thousand at most), in port order. */
export function forwardsRead(db: Db, nodeId: string) {
  return db
    .select({ edgeConfig: routes.edgeConfig })
    .from(routes)
    .where(and(eq(routes.nodeId, nodeId), ne(routes.status, 'removed'), isNotNull(routes.listenPort)))
    .orderBy(asc(routes.listenPort), asc(routes.proto))
}

/** The vhosts of a page of rows. */
export function vhostsOf(rows: readonly (RenderedRow & { hostname: string | null })[]) {
  return rows.flatMap((row) => vhostOf(toLiveRoute(row)))
}

/** The forwards of the rows `forwardsRead` answered. */
export function forwardsOf(rows: readonly { edgeConfig: RenderedRow['edgeConfig'] }[]) {
  return rows.flatMap(({ edgeConfig }) => (edgeConfig.forward ? [edgeConfig.forward] : []))
}

/**
 * The node's whole desired state at `configVersion`, read `pageSize` vhosts at a time. A route changed while the
 * pages are read is a later version's change, which that version's own push sends again.
 */
export async function readWholeState(
  db: Db,
  nodeId: string,
  configVersion: number,
  pageSize: number,
): Promise<EdgeState> {
  const [forwards, first] = await db.batch([
    forwardsRead(db, nodeId),
    vhostPageRead(db, nodeId, null, pageSize),
  ])
  const vhosts = vhostsOf(first)
  let page = first
  while (page.length === pageSize) {
    const after = page.at(-1)?.hostname ?? null
    page = await vhostPageRead(db, nodeId, after, pageSize)
    vhosts.push(...vhostsOf(page))
  }
  return { configVersion, vhosts, forwards: forwardsOf(forwards) }
}

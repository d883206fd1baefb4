import { and, eq, ne, type SQL, sql } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { instances, sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { DEFAULT_SITE_PORT } from './render'
import { bumpVersion, desiredVersion } from './versions'

// Each route's upstream as the rows say at the moment the statement runs: the instance's address and, for an
// http route, the site's port (raw routes keep their own target port). `upstreamOf` in SQL.
const address = sql`(select ${instances.address} from ${instances} where ${instances.id} = ${routes.instanceId})`
// D1 binds a JavaScript number as a real: the cast keeps `:80` from reading `:80.0`.
const port = sql`cast(case when ${routes.kind} = 'http'
  then coalesce((select ${sites.port} from ${sites} where ${sites.id} = ${routes.siteId}), ${DEFAULT_SITE_PORT})
  else ${routes.targetPort} end as integer)`
const upstream = sql`case when instr(${address}, ':') > 0 then '[' || ${address} || ']:' else ${address} || ':' end || ${port}`
const rendered = {
  targetPort: sql<number>`${port}`,
  edgeConfig: sql`case when ${routes.kind} = 'http'
    then json_set(${routes.edgeConfig}, '$.vhost.upstream', ${upstream})
    else json_set(${routes.edgeConfig}, '$.forward.upstream', ${upstream}) end`,
}

/**
 * The write that renders a new route's upstream from the rows as its batch commits, for the batch that inserts it:
 * an instance address or site port changed since the caller read them is the one the route carries.
 */
export function settleUpstream(db: Db, routeId: string): BatchItem {
  return db.update(routes).set(rendered).where(eq(routes.id, routeId))
}

/**
 * The writes that render the upstream of the node's live routes matching `which` again (after an instance's
 * address or a site's port changed, in that change's batch): each turns pending at the node's next version, so the
 * reconcile queued after the commit (`enqueueReconcile`) pushes them. Removed routes stay as they are.
 */
export function rerenderUpstreams(db: Db, nodeId: string, which: SQL, now: Date): BatchItem[] {
  return [
    ...bumpVersion(db, nodeId, now, 'everything'),
    db
      .update(routes)
      .set({ ...rendered, status: 'pending', configVersion: desiredVersion(nodeId), updatedAt: now })
      .where(and(eq(routes.nodeId, nodeId), which, ne(routes.status, 'removed'))),
  ]
}

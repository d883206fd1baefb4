import { and, eq, gt, lte, ne, sql } from 'drizzle-orm'
import { type EdgeChanges, MAX_FORWARDS_PER_BODY, MAX_VHOSTS_PER_BODY } from '../agent-contract/edge-changes'
import type { Forward } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { customHostnameSettings, customHostnames, hostnameClaims } from '../db/schema/custom-hostnames'
import { nodeEdgeChanges, nodeEdgeVersions, routes } from '../db/schema/routes'
import { claimOfRoute, customHostnameOfClaim, renderedColumns, settingsOfCustomHostname } from './live-routes'
import { vhostsOf } from './state-pages'

// The log's rows of the versions after the one the node applied, up to `version`.
function sinceApplied(nodeId: string, version: number) {
  const applied = sql`(select ${nodeEdgeVersions.applied} from ${nodeEdgeVersions} where ${nodeEdgeVersions.nodeId} = ${nodeId})`
  return and(
    eq(nodeEdgeChanges.nodeId, nodeId),
    gt(nodeEdgeChanges.version, applied),
    lte(nodeEdgeChanges.version, version),
  )
}

/**
 * The reads of what the versions after the applied one up to `version` changed, for the batch that reads the
 * node's versions (so both are seen at one moment): whether the log covers every such version and says
 * `everything` anywhere, and each changed vhost and forward with its live route, if any. Each costs the entries
 * changed: the log by (node, version), the routes by (node, hostname) and (node, port, proto).
 */
export function changedEntriesReads(db: Db, nodeId: string, version: number) {
  const hostnames = db
    .selectDistinct({ hostname: nodeEdgeChanges.hostname })
    .from(nodeEdgeChanges)
    .where(and(sinceApplied(nodeId, version), eq(nodeEdgeChanges.kind, 'vhost')))
    .limit(MAX_VHOSTS_PER_BODY + 1)
    .as('changed_hostnames')
  const forwardKeys = db
    .selectDistinct({ proto: nodeEdgeChanges.proto, listenPort: nodeEdgeChanges.listenPort })
    .from(nodeEdgeChanges)
    .where(and(sinceApplied(nodeId, version), eq(nodeEdgeChanges.kind, 'forward')))
    .limit(MAX_FORWARDS_PER_BODY + 1)
    .as('changed_forwards')
  return [
    db
      .select({
        first: sql<number | null>`min(${nodeEdgeChanges.version})`,
        everything: sql<number | null>`max(${nodeEdgeChanges.kind} = 'everything')`,
      })
      .from(nodeEdgeChanges)
      .where(sinceApplied(nodeId, version)),
    db
      .select({ hostname: hostnames.hostname, routeId: routes.id, ...renderedColumns })
      .from(hostnames)
      .leftJoin(
        routes,
        and(eq(routes.nodeId, nodeId), eq(routes.hostname, hostnames.hostname), ne(routes.status, 'removed')),
      )
      .leftJoin(hostnameClaims, claimOfRoute)
      .leftJoin(customHostnames, customHostnameOfClaim)
      .leftJoin(customHostnameSettings, settingsOfCustomHostname),
    db
      .select({
        proto: forwardKeys.proto,
        listenPort: forwardKeys.listenPort,
        routeId: routes.id,
        edgeConfig: routes.edgeConfig,
      })
      .from(forwardKeys)
      .leftJoin(
        routes,
        and(
          eq(routes.nodeId, nodeId),
          eq(routes.listenPort, forwardKeys.listenPort),
          eq(routes.proto, forwardKeys.proto),
          ne(routes.status, 'removed'),
        ),
      ),
  ] as const
}

type Reads = ReturnType<typeof changedEntriesReads>
type Answered<T> = { [K in keyof T]: T[K] extends PromiseLike<infer R> ? R : never }
export type ChangedEntriesRows = Answered<Reads>

/** What the node's changed entries are: the body of a changes call and the live routes it carries. */
export type ChangedEntries =
  | { kind: 'entries'; changes: Omit<EdgeChanges, 'baseVersion' | 'configVersion'>; routeIds: string[] }
  | { kind: 'everything' }

/**
 * The changes since `applied` from what `changedEntriesReads` answered: each entry present is an upsert rendered
 * from its row, each gone a removal. Everything when a change named no entry, when the log does not reach back
 * to the version after the applied one (versions raised before the log existed), or when the entries are more
 * than one body holds.
 */
export function changedEntriesOf(
  applied: number,
  [log, vhostRows, forwardRows]: ChangedEntriesRows,
): ChangedEntries {
  const [range] = log
  if (!range || range.everything || range.first !== applied + 1) return { kind: 'everything' }
  if (vhostRows.length > MAX_VHOSTS_PER_BODY || forwardRows.length > MAX_FORWARDS_PER_BODY)
    return { kind: 'everything' }
  const routeIds: string[] = []
  const present = vhostRows.flatMap((row) => {
    if (row.routeId === null || row.edgeConfig === null) return []
    routeIds.push(row.routeId)
    return [{ ...row, edgeConfig: row.edgeConfig }]
  })
  const forwards: Forward[] = []
  const removeForwards: EdgeChanges['removeForwards'] = []
  for (const row of forwardRows) {
    if (row.proto === null || row.listenPort === null) continue
    if (row.routeId !== null && row.edgeConfig?.forward) {
      routeIds.push(row.routeId)
      forwards.push(row.edgeConfig.forward)
    } else removeForwards.push({ listenPort: row.listenPort, proto: row.proto })
  }
  return {
    kind: 'entries',
    changes: {
      vhosts: vhostsOf(present),
      removeHostnames: vhostRows.flatMap((row) =>
        row.routeId === null && row.hostname ? [row.hostname] : [],
      ),
      forwards,
      removeForwards,
    },
    routeIds,
  }
}

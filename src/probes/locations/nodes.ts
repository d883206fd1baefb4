import { and, inArray, isNull, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { nodes } from '../../db/schema/fleet'
import { probes } from '../../db/schema/probes'
import { AppError, conflict } from '../../rpc/errors'
import type { NodeScope } from './node-rule'
import { nodeLocations } from './schema'

/** The 404 of a location naming no node, with `location` as the issue's path. */
export function unknownLocation(ids: readonly string[]): AppError {
  const message = `${ids.length === 1 ? 'is no node' : 'are no nodes'} of this panel: ${ids.join(', ')} (a location is "edge" or a node id)`
  return new AppError('not_found', `location: ${message}`, { issues: [{ path: 'location', message }] })
}

/** A node's columns the node rule reads (NodeScope), with its id. */
export const nodeScopeColumns = {
  id: nodes.id,
  name: nodes.name,
  agentUrl: nodes.agentUrl,
  agentHostname: nodes.agentHostname,
  checkAllowCidrs: nodes.checkAllowCidrs,
}

/** The nodes among `locations`, as the node rule reads them; 404 naming `location` for an id that is no node. */
export async function locationNodes(db: Db, locations: readonly string[]): Promise<NodeScope[]> {
  const wanted = nodeLocations(locations)
  if (wanted.length === 0) return []
  const found = await db.select(nodeScopeColumns).from(nodes).where(inArray(nodes.id, wanted))
  const known = new Set(found.map((row) => row.id))
  const unknown = wanted.filter((id) => !known.has(id))
  if (unknown.length > 0) throw unknownLocation(unknown)
  return found
}

/** 404 naming `location` unless each node location is a node of the panel. */
export async function assertLocationNodes(db: Db, locations: readonly string[]): Promise<void> {
  await locationNodes(db, locations)
}

/** True while every node location still exists: the batch guard beside a probe's insert or update. */
export function locationNodesExist(locations: readonly string[]): SQL {
  const wanted = nodeLocations(locations)
  if (wanted.length === 0) return sql`1`
  return sql`(select count(*) from ${nodes} where ${inArray(nodes.id, wanted)}) = ${wanted.length}`
}

/** Whether a probe row checks from the node (json_each over its locations). */
const checksFrom = (nodeId: string) =>
  sql`exists (select 1 from json_each(${probes.locations}) where json_each.value = ${nodeId})`

// The probes a refusal names at most.
const NAMED_PROBES = 10

/** 409 naming the live probes that check from the node: a node is removed only once none does. */
export async function assertNoProbeChecksFrom(db: Db, node: { id: string; name: string }): Promise<void> {
  const using = await db
    .select({ id: probes.id, name: probes.name })
    .from(probes)
    .where(and(isNull(probes.archivedAt), checksFrom(node.id)))
    .orderBy(probes.createdAt)
    .limit(NAMED_PROBES + 1)
  if (using.length === 0) return
  const named = using.slice(0, NAMED_PROBES).map((probe) => `${probe.name} (${probe.id})`)
  const more = using.length > NAMED_PROBES ? ', and more' : ''
  throw conflict(
    `probes check from node ${node.name}: ${named.join(', ')}${more}; change their location or archive them first`,
  )
}

/** True while no live probe checks from the node: the batch guard beside the node's removal. */
export function noProbeChecksFrom(nodeId: string): SQL {
  return sql`not exists (select 1 from ${probes} where ${probes.archivedAt} is null and ${checksFrom(nodeId)})`
}

import type { z } from '@hono/zod-openapi'
import { and, eq, ne, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { instances, nodeHealth, nodes, sites } from '../db/schema/fleet'
import { nodeEdgeVersions } from '../db/schema/routes'
import { afterCursor, newestFirst, orderTerms, rowsOfPage } from '../lib/paging'
import { conflict, invalid, notFound } from '../rpc/errors'
import { type EdgeVersionRecord, healthOf } from './health'
import type { InstanceRowSchema, NodeHealth, NodeRow, SiteRowSchema } from './schemas'

export type NodeRecord = typeof nodes.$inferSelect
export type InstanceRecord = typeof instances.$inferSelect
export type SiteRecord = typeof sites.$inferSelect

export function toNodeRow(node: Omit<NodeRecord, 'agentSecretSealed'>, health: NodeHealth): NodeRow {
  return {
    id: node.id,
    name: node.name,
    roles: node.roles,
    agentUrl: node.agentUrl,
    agentHostname: node.agentHostname,
    hasAgentSecret: true,
    publicIpv4: node.publicIpv4,
    publicIpv6: node.publicIpv6,
    dnsTarget: node.dnsTarget,
    checkAllowCidrs: node.checkAllowCidrs,
    health,
    createdAt: node.createdAt.toISOString(),
    updatedAt: node.updatedAt.toISOString(),
  }
}

export function toInstanceRow(instance: InstanceRecord): z.infer<typeof InstanceRowSchema> {
  const { createdAt, updatedAt, ...rest } = instance
  return { ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() }
}

export function toSiteRow(site: SiteRecord): z.infer<typeof SiteRowSchema> {
  const { createdAt, updatedAt, ...rest } = site
  return { ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() }
}

/**
 * 400 on `agentUrl` unless it is `https://<agentHostname>` (any port, no path beyond `/`) when the node has an
 * agent hostname: the panel calls the agent through the vhost the node's Caddy keeps for that name.
 */
export function assertAgentUrlMatches(agentUrl: string, agentHostname: string | null): void {
  if (agentHostname === null) return
  const url = new URL(agentUrl)
  if (url.protocol !== 'https:' || url.hostname !== agentHostname || !['', '/'].includes(url.pathname)) {
    throw invalid(
      'agentUrl',
      `must be https://${agentHostname} (a port may follow) while agentHostname is set`,
    )
  }
}

/** 409 when another node (any but `exceptId`) already has this name: names are unique across roles. */
export async function assertNameFree(db: Db, name: string, exceptId = ''): Promise<void> {
  const [taken] = await db
    .select({ id: nodes.id })
    .from(nodes)
    .where(and(eq(nodes.name, name), ne(nodes.id, exceptId)))
    .limit(1)
  if (taken) throw conflict(`a node named ${name} already exists`)
}

type NodeCheckState = (typeof nodeHealth.$inferSelect)['checkState']
const nodeOrder = newestFirst(nodes, nodes.createdAt)

// One node as nodes.get and nodes.list read it: what they show of the node (never its sealed secret), its last
// check and its edge version, in this order.
type NodeValues = [
  id: string,
  name: string,
  roles: string,
  agentUrl: string,
  agentHostname: string | null,
  publicIpv4: string | null,
  publicIpv6: string | null,
  dnsTarget: string | null,
  checkAllowCidrs: string,
  createdAt: number,
  updatedAt: number,
  checkState: NodeCheckState | null,
  checkedAt: number | null,
  lastSeenAt: number | null,
  agentVersion: string | null,
  appliedConfigVersion: number | null,
  error: string | null,
  edgeState: EdgeVersionRecord['state'] | null,
  edgeFailure: EdgeVersionRecord['failure'],
  edgeLastError: string | null,
]

const nodeValueColumns = sql.join(
  [
    ...[nodes.id, nodes.name, nodes.roles, nodes.agentUrl, nodes.agentHostname, nodes.publicIpv4],
    ...[nodes.publicIpv6, nodes.dnsTarget, nodes.checkAllowCidrs, nodes.createdAt, nodes.updatedAt],
    nodeHealth.checkState,
    ...[
      nodeHealth.checkedAt,
      nodeHealth.lastSeenAt,
      nodeHealth.agentVersion,
      nodeHealth.appliedConfigVersion,
    ],
    ...[nodeHealth.error, nodeEdgeVersions.state, nodeEdgeVersions.failure, nodeEdgeVersions.lastError],
  ],
  sql`, `,
)

/**
 * Nodes with what their health is read from (the last check, and the edge version that says whether it
 * refuses), as plain values mapped here: a 100-node page costs the query builder's row mapping more than the
 * read itself.
 */
async function selectNodeRows(db: Db, where: SQL | undefined, limit: number): Promise<NodeRow[]> {
  const rows = await db.values<NodeValues>(sql`select ${nodeValueColumns} from ${nodes}
    left join ${nodeHealth} on ${nodeHealth.nodeId} = ${nodes.id}
    left join ${nodeEdgeVersions} on ${nodeEdgeVersions.nodeId} = ${nodes.id}
    where ${where ?? sql`1`} order by ${sql.join(orderTerms(nodeOrder), sql`, `)} limit ${limit}`)
  return rows.map((v) => {
    const node = {
      id: v[0],
      name: v[1],
      roles: JSON.parse(v[2]) as NodeRecord['roles'],
      agentUrl: v[3],
      agentHostname: v[4],
      publicIpv4: v[5],
      publicIpv6: v[6],
      dnsTarget: v[7],
      checkAllowCidrs: JSON.parse(v[8]) as string[],
      createdAt: new Date(v[9]),
      updatedAt: new Date(v[10]),
    }
    const check =
      v[11] === null || v[12] === null
        ? null
        : {
            checkState: v[11],
            checkedAt: new Date(v[12]),
            lastSeenAt: v[13] === null ? null : new Date(v[13]),
            agentVersion: v[14],
            appliedConfigVersion: v[15],
            error: v[16],
          }
    const edge = v[17] === null ? null : { state: v[17], failure: v[18], lastError: v[19] }
    return toNodeRow(node, healthOf(check, edge))
  })
}

/** A page of nodes as the API shows them, health included, newest first, after the node `cursor`. */
export async function listNodeRows(
  db: Db,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<NodeRow[]> {
  const list = { table: nodes, id: nodes.id, order: nodeOrder }
  return selectNodeRows(db, await afterCursor(db, list, page.cursor), rowsOfPage(page.limit))
}

/** The node as the API shows it, health included, or 404. */
export async function getNodeRow(db: Db, id: string): Promise<NodeRow> {
  const [row] = await selectNodeRows(db, eq(nodes.id, id), 1)
  if (!row) throw notFound(`node ${id}`)
  return row
}

export async function getNode(db: Db, id: string): Promise<NodeRecord> {
  const [node] = await db.select().from(nodes).where(eq(nodes.id, id)).limit(1)
  if (!node) throw notFound(`node ${id}`)
  return node
}

export async function getInstance(db: Db, id: string): Promise<InstanceRecord> {
  const [instance] = await db.select().from(instances).where(eq(instances.id, id)).limit(1)
  if (!instance) throw notFound(`instance ${id}`)
  return instance
}

export async function getSite(db: Db, id: string): Promise<SiteRecord> {
  const [site] = await db.select().from(sites).where(eq(sites.id, id)).limit(1)
  if (!site) throw notFound(`site ${id}`)
  return site
}

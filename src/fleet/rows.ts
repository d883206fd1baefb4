import type { z } from '@hono/zod-openapi'
import { and, eq, getTableColumns, ne } from 'drizzle-orm'
import type { Db } from '../db/client'
import { instances, nodeHealth, nodes, sites } from '../db/schema/fleet'
import { nodeEdgeVersions } from '../db/schema/routes'
import { afterCursor, newestFirst, orderTerms } from '../lib/paging'
import { conflict, invalid, notFound } from '../rpc/errors'
import { healthOf } from './health'
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

// What nodes.get and nodes.list show of a node (never its sealed secret) and of its last check.
const { agentSecretSealed: _sealed, ...shownNode } = getTableColumns(nodes)
const shownCheck = {
  checkState: nodeHealth.checkState,
  checkedAt: nodeHealth.checkedAt,
  lastSeenAt: nodeHealth.lastSeenAt,
  agentVersion: nodeHealth.agentVersion,
  appliedConfigVersion: nodeHealth.appliedConfigVersion,
  error: nodeHealth.error,
}

// Nodes with what their health is read from: the last check, and the edge version that says whether it refuses.
function selectWithHealth(db: Db) {
  return db
    .select({
      node: shownNode,
      check: shownCheck,
      edge: {
        state: nodeEdgeVersions.state,
        failure: nodeEdgeVersions.failure,
        lastError: nodeEdgeVersions.lastError,
      },
    })
    .from(nodes)
    .leftJoin(nodeHealth, eq(nodeHealth.nodeId, nodes.id))
    .leftJoin(nodeEdgeVersions, eq(nodeEdgeVersions.nodeId, nodes.id))
}

type WithHealth = Awaited<ReturnType<typeof selectWithHealth>>[number]

const toRowWithHealth = ({ node, check, edge }: WithHealth): NodeRow => toNodeRow(node, healthOf(check, edge))

/** A page of nodes as the API shows them, health included, newest first, after the node `cursor`. */
export async function listNodeRows(
  db: Db,
  page: { limit: number; cursor?: string | undefined },
): Promise<NodeRow[]> {
  const list = { table: nodes, id: nodes.id, order: newestFirst(nodes, nodes.createdAt) }
  const rows = await selectWithHealth(db)
    .where(await afterCursor(db, list, page.cursor))
    .orderBy(...orderTerms(list.order))
    .limit(page.limit)
  return rows.map(toRowWithHealth)
}

/** The node as the API shows it, health included, or 404. */
export async function getNodeRow(db: Db, id: string): Promise<NodeRow> {
  const [row] = await selectWithHealth(db).where(eq(nodes.id, id)).limit(1)
  if (!row) throw notFound(`node ${id}`)
  return toRowWithHealth(row)
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

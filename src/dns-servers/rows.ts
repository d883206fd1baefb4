import { asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { dnsZones, nameservers, zoneBoxSync } from '../db/schema/dns-servers'
import { nodes } from '../db/schema/fleet'
import { afterCursor, type ListOrder, orderTerms, rowsOfPage } from '../lib/paging'
import { notFound } from '../rpc/errors'
import type { NameserverRow, ZoneBox, ZoneRow } from './schemas'

export type NodeRecord = typeof nodes.$inferSelect
export type NameserverRecord = typeof nameservers.$inferSelect
export type ZoneRecord = typeof dnsZones.$inferSelect
export type SyncRecord = typeof zoneBoxSync.$inferSelect

/** A nameserver box: its node row and its nameserver row. */
export interface NameserverBox {
  node: NodeRecord
  nameserver: NameserverRecord
}

/** A box's row for one zone, with the box it names. */
export interface ZoneBoxEntry extends NameserverBox {
  sync: SyncRecord
}

/** A nameserver row whose PowerDNS the panel can talk to. */
export type PowerDnsNameserver = NameserverRecord & {
  powerDnsApiUrl: string
  powerDnsApiKeySealed: string
  powerDnsServerId: string
}

/** Whether the panel holds everything it needs to talk to the box's PowerDNS. */
export function hasPowerDns(nameserver: NameserverRecord): nameserver is PowerDnsNameserver {
  return Boolean(nameserver.powerDnsApiUrl && nameserver.powerDnsApiKeySealed && nameserver.powerDnsServerId)
}

export function toNameserverRow({ node, nameserver }: NameserverBox): NameserverRow {
  return {
    id: node.id,
    name: node.name,
    hostname: nameserver.hostname,
    publicIpv4: node.publicIpv4,
    publicIpv6: node.publicIpv6,
    agentUrl: node.agentUrl,
    hasAgentSecret: true,
    powerDns: hasPowerDns(nameserver)
      ? { apiUrl: nameserver.powerDnsApiUrl, serverId: nameserver.powerDnsServerId, hasApiKey: true }
      : null,
    health: {
      checkedAt: nameserver.healthCheckedAt?.toISOString() ?? null,
      ok: nameserver.healthOk,
      detail: nameserver.healthDetail,
    },
    createdAt: nameserver.createdAt.toISOString(),
    updatedAt: nameserver.updatedAt.toISOString(),
  }
}

const byHostname: ListOrder = { keys: [sql`${nameservers.hostname}`], direction: 'asc' }

/** A page of nameserver boxes ordered by hostname, after the box `cursor` (a node id). */
export async function pageNameserverBoxes(
  db: Db,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<NameserverBox[]> {
  const list = { table: nameservers, id: nameservers.nodeId, order: byHostname }
  return db
    .select({ node: nodes, nameserver: nameservers })
    .from(nameservers)
    .innerJoin(nodes, eq(nodes.id, nameservers.nodeId))
    .where(await afterCursor(db, list, page.cursor))
    .orderBy(...orderTerms(byHostname))
    .limit(rowsOfPage(page.limit))
}

/** Every nameserver box, ordered by hostname. */
export async function listNameserverBoxes(db: Db): Promise<NameserverBox[]> {
  return db
    .select({ node: nodes, nameserver: nameservers })
    .from(nameservers)
    .innerJoin(nodes, eq(nodes.id, nameservers.nodeId))
    .orderBy(asc(nameservers.hostname))
}

export async function getNameserverBox(db: Db, id: string): Promise<NameserverBox> {
  const [box] = await db
    .select({ node: nodes, nameserver: nameservers })
    .from(nameservers)
    .innerJoin(nodes, eq(nodes.id, nameservers.nodeId))
    .where(eq(nameservers.nodeId, id))
    .limit(1)
  if (!box) throw notFound(`nameserver ${id}`)
  return box
}

export async function findZone(db: Db, id: string): Promise<ZoneRecord | null> {
  const [zone] = await db.select().from(dnsZones).where(eq(dnsZones.id, id)).limit(1)
  return zone ?? null
}

export async function getZone(db: Db, id: string): Promise<ZoneRecord> {
  const zone = await findZone(db, id)
  if (!zone) throw notFound(`zone ${id}`)
  return zone
}

function boxEntries(db: Db) {
  return db
    .select({ node: nodes, nameserver: nameservers, sync: zoneBoxSync })
    .from(zoneBoxSync)
    .innerJoin(nameservers, eq(nameservers.nodeId, zoneBoxSync.nodeId))
    .innerJoin(nodes, eq(nodes.id, zoneBoxSync.nodeId))
    .$dynamic()
}

/** The boxes that serve a zone, ordered by hostname. */
export async function zoneBoxEntries(db: Db, zoneId: string): Promise<ZoneBoxEntry[]> {
  return boxEntries(db).where(eq(zoneBoxSync.zoneId, zoneId)).orderBy(asc(nameservers.hostname))
}

/** The boxes of every zone in one query, grouped by zone id, each group ordered by hostname. */
export async function boxEntriesByZone(db: Db): Promise<Map<string, ZoneBoxEntry[]>> {
  const entries = await boxEntries(db).orderBy(asc(nameservers.hostname))
  const byZone = new Map<string, ZoneBoxEntry[]>()
  for (const entry of entries) {
    const group = byZone.get(entry.sync.zoneId)
    if (group) group.push(entry)
    else byZone.set(entry.sync.zoneId, [entry])
  }
  return byZone
}

export function toZoneBox({ node, nameserver, sync }: ZoneBoxEntry): ZoneBox {
  return {
    nodeId: node.id,
    name: node.name,
    hostname: nameserver.hostname,
    state: sync.state,
    lastError: sync.lastError,
    attempts: sync.attempts,
    updatedAt: sync.updatedAt.toISOString(),
  }
}

export function toZoneRow(zone: ZoneRecord, entries: readonly ZoneBoxEntry[]): ZoneRow {
  return {
    id: zone.id,
    name: zone.name,
    dnssec: zone.dnssec,
    boxes: entries.map(toZoneBox),
    createdAt: zone.createdAt.toISOString(),
    updatedAt: zone.updatedAt.toISOString(),
  }
}

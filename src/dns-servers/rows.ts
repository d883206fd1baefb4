import { asc, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { dnsZones, nameservers, zoneBoxSync } from '../db/schema/dns-servers'
import { nodes } from '../db/schema/fleet'
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

export function toNameserverRow({ node, nameserver }: NameserverBox): NameserverRow {
  const { powerDnsApiUrl, powerDnsServerId, powerDnsApiKeySealed } = nameserver
  return {
    id: node.id,
    name: node.name,
    hostname: nameserver.hostname,
    publicIpv4: node.publicIpv4,
    publicIpv6: node.publicIpv6,
    agentUrl: node.agentUrl,
    hasAgentSecret: true,
    powerDns:
      powerDnsApiUrl && powerDnsServerId && powerDnsApiKeySealed
        ? { apiUrl: powerDnsApiUrl, serverId: powerDnsServerId, hasApiKey: true }
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

export async function getZone(db: Db, id: string): Promise<ZoneRecord> {
  const [zone] = await db.select().from(dnsZones).where(eq(dnsZones.id, id)).limit(1)
  if (!zone) throw notFound(`zone ${id}`)
  return zone
}

/** The boxes that serve a zone, ordered by hostname. */
export async function zoneBoxEntries(db: Db, zoneId: string): Promise<ZoneBoxEntry[]> {
  return db
    .select({ node: nodes, nameserver: nameservers, sync: zoneBoxSync })
    .from(zoneBoxSync)
    .innerJoin(nameservers, eq(nameservers.nodeId, zoneBoxSync.nodeId))
    .innerJoin(nodes, eq(nodes.id, zoneBoxSync.nodeId))
    .where(eq(zoneBoxSync.zoneId, zoneId))
    .orderBy(asc(nameservers.hostname))
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

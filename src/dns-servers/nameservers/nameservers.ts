import { asc, eq } from 'drizzle-orm'
import type { BatchItem, Db } from '../../db/client'
import { dnsZones, nameservers, zoneBoxSync } from '../../db/schema/dns-servers'
import { randomSecret } from '../../lib/encoding'
import {
  type PowerDnsEndpoint,
  PowerDnsError,
  type PowerDnsServer,
  powerDnsClient,
} from '../../outside/powerdns'
import { AppError, conflict, invalid } from '../../rpc/errors'
import { syncNow, type ZoneSyncJob } from '../sync/queue'

/**
 * Proves a PowerDNS answers at the endpoint with this key and is an authoritative server. A wrong key or
 * server id is the caller's input (400 naming `field`.apiKey / .serverId); a box that does not answer is 502.
 */
export async function checkPowerDns(endpoint: PowerDnsEndpoint, field: string): Promise<PowerDnsServer> {
  let server: PowerDnsServer
  try {
    server = await powerDnsClient(endpoint).server()
  } catch (error) {
    if (!(error instanceof PowerDnsError)) throw error
    if (error.kind === 'unauthorized')
      throw invalid(`${field}.apiKey`, `PowerDNS refused the key: ${error.message}`)
    if (error.kind === 'not_found')
      throw invalid(`${field}.serverId`, `PowerDNS has no such server: ${error.message}`)
    throw new AppError('upstream_failed', `PowerDNS at ${endpoint.apiUrl} failed the check: ${error.message}`)
  }
  if (server.daemon_type !== 'authoritative') {
    throw invalid(
      `${field}.apiUrl`,
      `answers as a PowerDNS ${server.daemon_type}, not an authoritative server`,
    )
  }
  return server
}

/** A fresh API key for a PowerDNS the agent installs: 32 random bytes, base64url. */
export function newApiKey(): string {
  return randomSecret()
}

export async function assertHostnameFree(db: Db, hostname: string): Promise<void> {
  const [taken] = await db
    .select({ id: nameservers.nodeId })
    .from(nameservers)
    .where(eq(nameservers.hostname, hostname))
    .limit(1)
  if (taken) throw conflict(`a nameserver with host name ${hostname} already exists`)
}

/** Pending sync rows for every zone this box does not serve yet, and the jobs that will fill it. */
export async function joinZones(
  db: Db,
  nodeId: string,
  now: Date,
): Promise<{ writes: BatchItem[]; jobs: ZoneSyncJob[] }> {
  const zones = await db.select({ id: dnsZones.id }).from(dnsZones)
  const served = new Set(
    (
      await db.select({ zoneId: zoneBoxSync.zoneId }).from(zoneBoxSync).where(eq(zoneBoxSync.nodeId, nodeId))
    ).map((row) => row.zoneId),
  )
  const missing = zones.filter((zone) => !served.has(zone.id))
  return {
    writes: missing.map((zone) =>
      db.insert(zoneBoxSync).values({
        zoneId: zone.id,
        nodeId,
        state: 'pending',
        recordsCurrent: false,
        generation: 0,
        lastError: null,
        attempts: 0,
        updatedAt: now,
      }),
    ),
    jobs: missing.map((zone) => syncNow(zone.id, nodeId)),
  }
}

/**
 * Refuses to remove a box that is the only one serving a zone (the zone would be left with nothing to copy from,
 * and a later box would start it empty), or the last box with the zone's current records while the others are
 * behind (they copy from such a box, and none would be left).
 */
export async function assertRemovable(db: Db, nodeId: string): Promise<void> {
  const [rows, zones] = await Promise.all([
    db.select().from(zoneBoxSync),
    db.select({ id: dnsZones.id, name: dnsZones.name }).from(dnsZones).orderBy(asc(dnsZones.name)),
  ])
  const only: string[] = []
  const lastCurrent: string[] = []
  for (const zone of zones) {
    const zoneRows = rows.filter((row) => row.zoneId === zone.id)
    const mine = zoneRows.find((row) => row.nodeId === nodeId)
    if (!mine) continue
    const others = zoneRows.filter((row) => row !== mine)
    if (others.length === 0) only.push(zone.name)
    else if (mine.recordsCurrent && !others.some((row) => row.recordsCurrent)) lastCurrent.push(zone.name)
  }
  if (only.length > 0) {
    throw conflict(
      `this box is the only one serving ${only.join(', ')}; enroll another nameserver box with PowerDNS and let it sync first`,
    )
  }
  if (lastCurrent.length > 0) {
    throw conflict(
      `this box is the only synced one for ${lastCurrent.join(', ')}; let the other boxes sync first`,
    )
  }
}

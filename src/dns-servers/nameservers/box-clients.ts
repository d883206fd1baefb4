import { openSecret, type SecretKeys } from '../../lib/secrets'
import { type PowerDnsClient, powerDnsClient } from '../../outside/powerdns'
import { conflict } from '../../rpc/errors'
import { hasPowerDns, type NameserverBox, type NameserverRecord, type ZoneBoxEntry } from '../rows'
import type { SyncState } from '../schemas'

/** How a box stood for a zone when it was read: what people see, and whether its records are current. */
export interface BoxStanding {
  state: SyncState
  recordsCurrent: boolean
  attempts: number
}

/** A box that serves a zone, with a PowerDNS client opened from its sealed key. */
export interface LiveBox extends BoxStanding {
  nodeId: string
  name: string
  hostname: string
  client: PowerDnsClient
}

/** A client for the box's PowerDNS, or null when none is installed or adopted yet. */
export async function openPowerDns(
  env: SecretKeys,
  nameserver: NameserverRecord,
): Promise<PowerDnsClient | null> {
  if (!hasPowerDns(nameserver)) return null
  const apiKey = await openSecret(env, nameserver.powerDnsApiKeySealed)
  return powerDnsClient({
    apiUrl: nameserver.powerDnsApiUrl,
    apiKey,
    serverId: nameserver.powerDnsServerId,
  })
}

/** A live box for one nameserver with the given standing, or null when it has no PowerDNS yet. */
export async function openBox(
  env: SecretKeys,
  { node, nameserver }: NameserverBox,
  standing: BoxStanding,
): Promise<LiveBox | null> {
  const client = await openPowerDns(env, nameserver)
  if (!client) return null
  return { nodeId: node.id, name: node.name, hostname: nameserver.hostname, ...standing, client }
}

/** Opens a client for every box of a zone that has PowerDNS. */
export async function liveBoxes(env: SecretKeys, entries: readonly ZoneBoxEntry[]): Promise<LiveBox[]> {
  const boxes = await Promise.all(entries.map((entry) => openBox(env, entry, entry.sync)))
  return boxes.filter((box): box is LiveBox => box !== null)
}

/** The live boxes of a zone; a zone no box with PowerDNS serves answers 409. */
export async function servingBoxes(env: SecretKeys, entries: readonly ZoneBoxEntry[]): Promise<LiveBox[]> {
  const boxes = await liveBoxes(env, entries)
  if (boxes.length === 0) throw conflict('no nameserver box with PowerDNS serves this zone')
  return boxes
}

import { and, eq } from 'drizzle-orm'
import { db } from '../db/client'
import { dnsZones, zoneBoxSync } from '../db/schema/dns-servers'
import type { Env } from '../env'
import type { JobOutcome } from '../jobs/handlers'
import { backoffSeconds } from '../lib/backoff'
import { bareName } from '../outside/powerdns-content'
import { errorText, liveBoxes, readFromSynced } from './boxes'
import { listNameserverBoxes, zoneBoxEntries } from './rows'
import { syncBox } from './zone-sync'

/** Copies a zone's current content to one box that missed a change; retried with backoff until it syncs. */
export interface ZoneSyncMessage {
  type: 'dns.zone-sync'
  zoneId: string
  nodeId: string
}

/** Runs one zone-sync: a zone or box removed meanwhile, or a box already synced, ends the job. */
export async function zoneSyncJob(message: ZoneSyncMessage, env: Env, attempts: number): Promise<JobOutcome> {
  const database = db(env.DB)
  const [zone] = await database.select().from(dnsZones).where(eq(dnsZones.id, message.zoneId)).limit(1)
  if (!zone) return { kind: 'done' }
  const entries = await zoneBoxEntries(database, zone.id)
  const entry = entries.find((e) => e.node.id === message.nodeId)
  if (!entry || entry.sync.state === 'synced') return { kind: 'done' }
  const boxes = await liveBoxes(env, entries)
  const target = boxes.find((box) => box.nodeId === message.nodeId)
  if (!target) return { kind: 'done' }
  const row = and(eq(zoneBoxSync.zoneId, zone.id), eq(zoneBoxSync.nodeId, target.nodeId))

  try {
    const others = boxes.filter((box) => box.nodeId !== target.nodeId)
    const source = await readFromSynced(others, (box) => box.client.getZone(zone.name))
    if (!source.ok && others.length > 0) throw new Error(`no synced box to copy from: ${source.error}`)
    const nameservers = source.ok
      ? (
          source.value.rrsets.find((r) => r.type === 'NS' && bareName(r.name) === zone.name)?.records ?? []
        ).map((r) => r.content)
      : (await listNameserverBoxes(database)).map((box) => box.nameserver.hostname)
    await syncBox(zone, target, source.ok ? source.box : null, nameservers)
  } catch (error) {
    await database
      .update(zoneBoxSync)
      .set({
        state: 'failed',
        lastError: errorText(error),
        attempts: target.attempts + 1,
        updatedAt: new Date(),
      })
      .where(row)
    return { kind: 'retry', delaySeconds: backoffSeconds(attempts) }
  }
  await database
    .update(zoneBoxSync)
    .set({ state: 'synced', lastError: null, attempts: 0, updatedAt: new Date() })
    .where(row)
  return { kind: 'done' }
}

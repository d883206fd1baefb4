import { db } from '../../db/client'
import type { Env } from '../../env'
import type { JobOutcome } from '../../jobs/outcome'
import { backoffSeconds } from '../../lib/backoff'
import { PowerDnsError } from '../../outside/powerdns'
import { type LiveBox, liveBoxes } from '../nameservers/box-clients'
import { readFromCurrent } from '../nameservers/box-reads'
import { nameserverSet } from '../nameservers/ns-set'
import { findZone, type ZoneRecord, zoneBoxEntries } from '../rows'
import { claimReference, markCatchUpFailed, markSynced } from './catch-up-state'
import { errorText } from './fan-out'
import { copyZone, readyAsReference } from './zone-sync'

export interface ZoneSyncMessage {
  type: 'dns.zone-sync'
  zoneId: string
  nodeId: string
}

const DONE: JobOutcome = { kind: 'done' }

/** How the box caught up: copied from a synced box, or readied as the reference when none is synced. */
type CatchUp = 'copied' | 'reference'

async function catchUp(
  zone: ZoneRecord,
  target: LiveBox,
  others: readonly LiveBox[],
  nameservers: readonly string[],
): Promise<CatchUp> {
  const synced = others.filter((box) => box.state === 'synced')
  if (synced.length > 0) {
    const source = await readFromCurrent(synced, (box) => box.client.getZone(zone.name))
    if (!source.ok) throw new Error(`no synced box to copy from answered: ${source.error}`)
    await copyZone(zone, target, source.box, source.value, nameservers)
    return 'copied'
  }
  if (!target.recordsCurrent) throw new Error('no synced box to copy from')
  await readyAsReference(zone, target, nameservers)
  return 'reference'
}

/**
 * Whether the box keeps current records after a failed catch-up: a copy may have left it half-patched, and a
 * box that lost the zone holds nothing; a box that merely failed to answer while readying as the reference
 * keeps them, or a zone whose boxes were all down would have nothing left to copy from.
 */
function keepsRecords(target: LiveBox, path: 'copy' | 'reference', error: unknown): boolean {
  const lostZone = error instanceof PowerDnsError && error.kind === 'not_found'
  return path === 'reference' && target.recordsCurrent && !lostZone
}

/**
 * Runs one zone-sync: copies the zone to a box that is behind from a synced box, or, when no box is synced,
 * readies this one as the reference if its records are current. The box is called synced only if no change
 * marked it since the job read it (its generation is unchanged) and DNSSEC was not switched meanwhile;
 * otherwise the job retries. A zone or box removed meanwhile, or a box already synced, ends the job.
 */
export async function zoneSyncJob(message: ZoneSyncMessage, env: Env, attempts: number): Promise<JobOutcome> {
  const database = db(env.DB)
  const zone = await findZone(database, message.zoneId)
  if (!zone) return DONE
  const entries = await zoneBoxEntries(database, zone.id)
  const entry = entries.find((e) => e.node.id === message.nodeId)
  if (!entry || entry.sync.state === 'synced') return DONE
  const boxes = await liveBoxes(env, entries)
  const target = boxes.find((box) => box.nodeId === message.nodeId)
  if (!target) return DONE
  const { generation } = entry.sync
  const others = boxes.filter((box) => box !== target)
  const retry: JobOutcome = { kind: 'retry', delaySeconds: backoffSeconds(attempts) }

  let caughtUp: CatchUp
  try {
    caughtUp = await catchUp(zone, target, others, await nameserverSet(database))
    if ((await findZone(database, zone.id))?.dnssec !== zone.dnssec) {
      throw new Error('DNSSEC was switched while copying; copying again')
    }
  } catch (error) {
    const path = others.some((box) => box.state === 'synced') ? 'copy' : 'reference'
    await markCatchUpFailed(
      database,
      zone.id,
      target.nodeId,
      generation,
      {
        error: errorText(error),
        attempts: target.attempts + 1,
        recordsCurrent: keepsRecords(target, path, error),
      },
      new Date(),
    )
    return { ...retry, error: errorText(error) }
  }
  const settle = caughtUp === 'copied' ? markSynced : claimReference
  return (await settle(database, zone.id, target.nodeId, generation, new Date())) ? DONE : retry
}

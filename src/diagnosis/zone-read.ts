import type { ZoneWriter } from '../custom-hostnames/planner'
import { type OwnRecord, PROBE_READ_MS, readNameInZone } from '../custom-hostnames/records-in-the-way'
import type { Db } from '../db/client'
import type { PresentRecord } from '../dns-write/name-writer'
import type { Env } from '../env'
import { bareName } from '../lib/dns-name'
import { type ObservedRecord, ObservedRecordSchema, type ObservedSet } from './schema'

/** The Hosted or Connected zone the panel writes the hostname's records into. */
export interface WrittenZone {
  writer: ZoneWriter
  zoneName: string
  /** What the panel wrote at the name (its ledger, or a domain's `written`). */
  own: () => Promise<readonly OwnRecord[]>
  /** A write of the panel into this zone is queued (a pending row, a domain before its DNS write). */
  writeComing: boolean
}

/** The zone's set, and (when it was read) every record at the name and those the panel did not write. */
export interface ZoneView {
  set: ObservedSet
  present: PresentRecord[]
  others: PresentRecord[]
  read: boolean
}

const SHOWN_TYPES = new Set<string>(ObservedRecordSchema.shape.type.options)

function toObserved(hostname: string, record: PresentRecord): ObservedRecord[] {
  if (!SHOWN_TYPES.has(record.type)) return []
  const value = record.type === 'CNAME' ? bareName(record.value).toLowerCase() : record.value
  return [{ type: record.type as ObservedRecord['type'], name: hostname, value, ttl: record.ttl ?? 0 }]
}

const unread = (error: string): ZoneView => ({
  set: { source: 'zone', readAt: new Date().toISOString(), rcode: null, error, records: [] },
  present: [],
  others: [],
  read: false,
})

/**
 * What the zone itself holds at the hostname, read as the panel's write would meet it (the same read that finds
 * records in the way at register). Bounded like probe's read; a provider account with no call free in its pace
 * is not read (its writes need the budget more).
 */
export async function readZone(db: Db, env: Env, hostname: string, zone: WrittenZone): Promise<ZoneView> {
  const read = readNameInZone(db, env, hostname, zone.writer, zone.zoneName, zone.own).then(
    (found): ZoneView =>
      found
        ? {
            set: {
              source: 'zone',
              readAt: new Date().toISOString(),
              rcode: null,
              error: null,
              records: found.present.flatMap((record) => toObserved(hostname, record)),
            },
            present: found.present,
            others: found.others,
            read: true,
          }
        : unread("not read now: the DNS account's rate limit is kept for the panel's writes"),
    (error: unknown) =>
      unread(`the zone could not be read: ${error instanceof Error ? error.message : error}`),
  )
  const deadline = new Promise<ZoneView>((resolve) =>
    setTimeout(
      () => resolve(unread(`the zone did not answer within ${PROBE_READ_MS / 1000} s`)),
      PROBE_READ_MS,
    ),
  )
  return Promise.race([read, deadline])
}

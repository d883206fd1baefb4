import { eq } from 'drizzle-orm'
import { dnsZones, zoneBoxSync } from '../../db/schema/dns-servers'
import type { ProcedureContext } from '../../rpc/define'
import { AppError, conflict } from '../../rpc/errors'
import { type LiveBox, openBox } from '../nameservers/box-clients'
import {
  hasPowerDns,
  listNameserverBoxes,
  type SyncRecord,
  toZoneRow,
  type ZoneRecord,
  zoneBoxEntries,
} from '../rows'
import type { SyncState, ZoneRow } from '../schemas'
import { errorText } from '../sync/fan-out'
import { enqueueZoneSync, syncAfterFailure, syncNow } from '../sync/queue'
import { createOnBox } from '../sync/zone-sync'

export interface BoxCreate {
  box: LiveBox
  state: SyncState
  error: string | null
}

/**
 * Creates the zone on every box at once and decides each box's sync state: created is synced, down is failed
 * (a job retries it), and a box that already had the zone (409) holds unknown content, so it is pending and
 * copies from a box that created it, unless none did, when the first such box becomes the reference.
 * No box taking the zone answers 502.
 */
export async function createEverywhere(
  boxes: readonly LiveBox[],
  zone: string,
  nameservers: readonly string[],
): Promise<BoxCreate[]> {
  const attempts = await Promise.all(
    boxes.map(async (box) => {
      try {
        return { box, created: (await createOnBox(box, zone, nameservers)).created, error: null }
      } catch (error) {
        return { box, created: false, error: errorText(error) }
      }
    }),
  )
  if (attempts.every((a) => a.error !== null)) {
    const detail = attempts.map((a) => `${a.box.hostname}: ${a.error}`).join('; ')
    throw new AppError('upstream_failed', `no nameserver box took the zone (${detail})`)
  }
  const anyCreated = attempts.some((a) => a.created)
  const reference = anyCreated ? null : attempts.find((a) => a.error === null)?.box
  return attempts.map(({ box, created, error }) => ({
    box,
    error,
    state: error !== null ? 'failed' : created || box === reference ? 'synced' : 'pending',
  }))
}

/**
 * Creates a zone on every box with PowerDNS, whose host names make its NS set, and records each box's state;
 * the boxes that did not create it get a job. The only place a zone starts empty on purpose.
 */
export async function createZone(ctx: ProcedureContext, name: string): Promise<ZoneRow> {
  const [existing] = await ctx.db.select().from(dnsZones).where(eq(dnsZones.name, name)).limit(1)
  if (existing) throw conflict(`zone ${name} already exists`)
  const all = (await listNameserverBoxes(ctx.db)).filter((box) => hasPowerDns(box.nameserver))
  const opened = await Promise.all(
    all.map((box) => openBox(ctx.env, box, { state: 'pending', recordsCurrent: false, attempts: 0 })),
  )
  const boxes = opened.filter((box): box is LiveBox => box !== null)
  if (boxes.length === 0) throw conflict('enroll a nameserver box with PowerDNS before creating zones')

  const nameservers = boxes.map((box) => box.hostname).sort()
  const results = await createEverywhere(boxes, name, nameservers)
  const now = new Date()
  const zone: ZoneRecord = { id: crypto.randomUUID(), name, dnssec: false, createdAt: now, updatedAt: now }
  const rows: SyncRecord[] = results.map(({ box, state, error }) => ({
    zoneId: zone.id,
    nodeId: box.nodeId,
    state,
    recordsCurrent: state === 'synced',
    generation: 0,
    lastError: error,
    attempts: error ? 1 : 0,
    updatedAt: now,
  }))
  await ctx.commit(
    [ctx.db.insert(dnsZones).values(zone), ...rows.map((row) => ctx.db.insert(zoneBoxSync).values(row))],
    {
      targetId: zone.id,
      detail: { name: zone.name, boxes: Object.fromEntries(rows.map((row) => [row.nodeId, row.state])) },
    },
  )
  await enqueueZoneSync(
    ctx.env,
    rows.flatMap((row) =>
      row.state === 'failed'
        ? [syncAfterFailure(zone.id, row.nodeId)]
        : row.state === 'pending'
          ? [syncNow(zone.id, row.nodeId)]
          : [],
    ),
  )
  return toZoneRow(zone, await zoneBoxEntries(ctx.db, zone.id))
}

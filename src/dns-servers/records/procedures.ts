import { eq } from 'drizzle-orm'
import { dnsZones } from '../../db/schema/dns-servers'
import type { RRsetChange } from '../../outside/powerdns'
import { type ProcedureContext, procedure } from '../../rpc/define'
import { invalid } from '../../rpc/errors'
import { type LiveBox, servingBoxes } from '../nameservers/box-clients'
import { mustReadFromCurrent } from '../nameservers/box-reads'
import { getZone, type ZoneRecord, zoneBoxEntries } from '../rows'
import { type BoxWrite, DeleteRecordSchema, RecordWriteResultSchema, UpsertRecordSchema } from '../schemas'
import { writeToBoxes } from '../sync/fan-out'
import { enqueueZoneSync } from '../sync/queue'
import { writeChange } from '../zones/change'
import { deleteChange, rejectedRecordField, replaceChange, typesAt } from './records'
import { checkOwnerName, checkRecordSet, cnameConflict } from './validation'

/**
 * Writes one record change to every box of the zone at once (rectifying a signed zone after it), records which
 * boxes missed it and queues their sync. Succeeds when a box holding the current records took it.
 */
async function recordChange(
  ctx: ProcedureContext,
  zone: ZoneRecord,
  boxes: readonly LiveBox[],
  change: RRsetChange,
  detail: Record<string, unknown>,
): Promise<BoxWrite[]> {
  const now = new Date()
  const settled = await writeChange(
    ctx.db,
    ctx.env,
    zone.id,
    boxes,
    (targets) =>
      writeToBoxes(targets, async (box) => {
        await box.client.patchRRsets(zone.name, [change])
        if (zone.dnssec) await box.client.rectify(zone.name)
      }),
    rejectedRecordField,
    now,
  )
  await ctx.commit(
    [...settled.writes, ctx.db.update(dnsZones).set({ updatedAt: now }).where(eq(dnsZones.id, zone.id))],
    { targetId: zone.id, detail: { ...detail, behind: settled.behind } },
  )
  await enqueueZoneSync(ctx.env, settled.jobs)
  return settled.results
}

// Records are the onboarding sequence's first step, so they go with domains:manage; the zones themselves, DNSSEC
// and the nameservers stay settings:edit.
export const recordProcedures = {
  upsertRecord: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'zone.upsert-record',
    summary: 'Replace the record set of one name and type on every box (A, AAAA, CNAME, MX, TXT, wildcards)',
    rest: { method: 'post', path: '/dnsServers/zones/records/upsert' },
    input: UpsertRecordSchema,
    output: RecordWriteResultSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const checked = checkRecordSet(zone.name, input)
      if (!checked.ok) throw invalid(checked.issue.path, checked.issue.message)
      const record = checked.value
      const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
      const current = await mustReadFromCurrent(boxes, (box) => box.client.getZone(zone.name))
      const clash = cnameConflict(record, typesAt(current.value.rrsets, record.name))
      if (clash) throw invalid(clash.path, clash.message)
      const results = await recordChange(ctx, zone, boxes, replaceChange(record), {
        name: record.name,
        type: record.type,
        ttl: record.ttl,
        values: record.values.length,
      })
      return { zoneId: zone.id, name: record.name, type: record.type, record, boxes: results }
    },
  }),
  deleteRecord: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'zone.delete-record',
    summary: 'Delete the record set of one name and type on every box; deleting what is absent succeeds',
    input: DeleteRecordSchema,
    output: RecordWriteResultSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const name = checkOwnerName(zone.name, input.name)
      if (!name.ok) throw invalid(name.issue.path, name.issue.message)
      const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
      const results = await recordChange(ctx, zone, boxes, deleteChange(name.value, input.type), {
        name: name.value,
        type: input.type,
      })
      return { zoneId: zone.id, name: name.value, type: input.type, record: null, boxes: results }
    },
  }),
}

import { z } from '@hono/zod-openapi'
import { asc, eq } from 'drizzle-orm'
import { dnsZones, zoneBoxSync } from '../db/schema/dns-servers'
import { IdInputSchema } from '../lib/schemas'
import { bareName } from '../outside/powerdns-content'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import {
  enqueueZoneSync,
  type LiveBox,
  liveBoxes,
  mustReadFromSynced,
  openBox,
  readFromSynced,
  servingBoxes,
} from './boxes'
import { delegationCheck } from './delegation'
import { publicLookup } from './lookup'
import { toRecordSets } from './records'
import {
  getZone,
  listNameserverBoxes,
  type SyncRecord,
  toZoneRow,
  type ZoneRecord,
  zoneBoxEntries,
} from './rows'
import { DnsCheckSchema, FqdnSchema, ZoneDetailSchema, ZoneRowSchema } from './schemas'
import { createEverywhere } from './zone-create'

export const zoneProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: "List zones with each box's sync state",
    input: z.strictObject({}),
    output: z.array(ZoneRowSchema),
    async handler(_input, ctx) {
      const zones = await ctx.db.select().from(dnsZones).orderBy(asc(dnsZones.name))
      return Promise.all(zones.map(async (zone) => toZoneRow(zone, await zoneBoxEntries(ctx.db, zone.id))))
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'Get a zone with its records, read live from a synced box',
    input: IdInputSchema,
    output: ZoneDetailSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const entries = await zoneBoxEntries(ctx.db, zone.id)
      const live = await readFromSynced(await liveBoxes(ctx.env, entries), (box) =>
        box.client.getZone(zone.name),
      )
      return {
        ...toZoneRow(zone, entries),
        records: live.ok ? toRecordSets(live.value.rrsets) : null,
        recordsFrom: live.ok ? live.box.nodeId : null,
        recordsError: live.ok ? null : live.error,
      }
    },
  }),
  create: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'zone.create',
    summary: 'Create a zone on every nameserver box; a box that is down gets it from a retrying job',
    input: z.strictObject({ name: FqdnSchema }),
    output: ZoneRowSchema,
    errors: ['conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const [existing] = await ctx.db.select().from(dnsZones).where(eq(dnsZones.name, input.name)).limit(1)
      if (existing) throw conflict(`zone ${input.name} already exists`)
      const all = await listNameserverBoxes(ctx.db)
      const nameservers = all.map((box) => box.nameserver.hostname)
      const opened = await Promise.all(
        all.map((box) => openBox(ctx.env, box, { state: 'pending', attempts: 0 })),
      )
      const boxes = opened.filter((box): box is LiveBox => box !== null)
      if (boxes.length === 0) throw conflict('enroll a nameserver box with PowerDNS before creating zones')

      const results = await createEverywhere(boxes, input.name, nameservers)
      const now = new Date()
      const zone: ZoneRecord = {
        id: crypto.randomUUID(),
        name: input.name,
        dnssec: false,
        createdAt: now,
        updatedAt: now,
      }
      const rows: SyncRecord[] = results.map(({ box, state, error }) => ({
        zoneId: zone.id,
        nodeId: box.nodeId,
        state,
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
        rows.filter((row) => row.state === 'failed'),
        true,
      )
      await enqueueZoneSync(
        ctx.env,
        rows.filter((row) => row.state === 'pending'),
        false,
      )
      return toZoneRow(zone, await zoneBoxEntries(ctx.db, zone.id))
    },
  }),
  verifyDelegation: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'Compare the NS set public DNS publishes for the zone with the one the boxes serve',
    input: IdInputSchema,
    output: DnsCheckSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
      const served = await mustReadFromSynced(boxes, (box) => box.client.getZone(zone.name))
      const ns = served.value.rrsets.find((r) => r.type === 'NS' && bareName(r.name) === zone.name)
      const found = await publicLookup(ctx.env, zone.name, 'NS')
      return delegationCheck(zone.name, ns?.records.map((r) => r.content) ?? [], found)
    },
  }),
}

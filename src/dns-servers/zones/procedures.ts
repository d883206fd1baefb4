import { z } from '@hono/zod-openapi'
import { sql } from 'drizzle-orm'
import { dnsZones } from '../../db/schema/dns-servers'
import { afterCursor, type ListOrder, orderTerms, pageInput, rowsOfPage } from '../../lib/paging'
import { IdInputSchema } from '../../lib/schemas'
import { procedure } from '../../rpc/define'
import { conflict } from '../../rpc/errors'
import { publicLookup } from '../lookup'
import { liveBoxes } from '../nameservers/box-clients'
import { readFromCurrent } from '../nameservers/box-reads'
import { nameserverSet } from '../nameservers/ns-set'
import { toRecordSets } from '../records/records'
import { boxEntriesByZone, getZone, toZoneRow, zoneBoxEntries } from '../rows'
import { DnsCheckSchema, FqdnSchema, ZoneDetailSchema, ZoneRowSchema } from '../schemas'
import { createZone } from './create'
import { delegationCheck } from './delegation'

const byName: ListOrder = { keys: [sql`${dnsZones.name}`], direction: 'asc' }

export const zoneProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary:
      "List zones with each box's sync state, by name; page with limit and cursor (the id of the last zone you hold)",
    input: z.strictObject({ ...pageInput }),
    output: z.array(ZoneRowSchema),
    async handler(input, ctx) {
      const list = { table: dnsZones, id: dnsZones.id, order: byName }
      const after = await afterCursor(ctx.db, list, input.cursor)
      const [zones, entries] = await Promise.all([
        ctx.db
          .select()
          .from(dnsZones)
          .where(after)
          .orderBy(...orderTerms(byName))
          .limit(rowsOfPage(input.limit)),
        boxEntriesByZone(ctx.db),
      ])
      return zones.map((zone) => toZoneRow(zone, entries.get(zone.id) ?? []))
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
      const live = await readFromCurrent(await liveBoxes(ctx.env, entries), (box) =>
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
    handler(input, ctx) {
      return createZone(ctx, input.name)
    },
  }),
  verifyDelegation: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary:
      "Compare the NS set a recursive resolver returns for the zone with the boxes' NS set (the host names of the boxes with PowerDNS)",
    input: IdInputSchema,
    output: DnsCheckSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const expected = await nameserverSet(ctx.db)
      if (expected.length === 0) throw conflict('no nameserver box with PowerDNS serves this zone')
      const found = await publicLookup(ctx.env, zone.name, 'NS')
      return delegationCheck(zone.name, expected, found)
    },
  }),
}

import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { dnsZones } from '../db/schema/dns-servers'
import { IdInputSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { AppError, conflict } from '../rpc/errors'
import {
  assertWriteTook,
  type BoxOutcome,
  enqueueZoneSync,
  errorText,
  type LiveBox,
  mustReadFromSynced,
  servingBoxes,
  syncUpdates,
  writeToBoxes,
} from './boxes'
import { dsCheck } from './delegation'
import { copySigningKeys, DS_DIGEST_TYPES, type DsEntry, dsText, parseDs, signAt, unsignAt } from './dnssec'
import { publicLookup } from './lookup'
import { getZone, type ZoneRecord, zoneBoxEntries } from './rows'
import { DnsCheckSchema, DnssecResultSchema, DsResultSchema } from './schemas'

/** Signs at the first synced box that manages to, then copies its keys to every other box. */
async function enableSigning(zone: ZoneRecord, boxes: readonly LiveBox[]): Promise<BoxOutcome[]> {
  const errors: string[] = []
  for (const source of boxes.filter((box) => box.state === 'synced')) {
    try {
      await signAt(source.client, zone.name)
    } catch (error) {
      errors.push(`${source.hostname}: ${errorText(error)}`)
      continue
    }
    const others = boxes.filter((box) => box !== source)
    const copied = await writeToBoxes(others, (box) => copySigningKeys(source.client, box.client, zone.name))
    return [{ box: source, error: null, rejected: false }, ...copied]
  }
  throw new AppError(
    'upstream_failed',
    `no synced box could turn signing on (${errors.join('; ') || 'none is synced'})`,
  )
}

/** The DS records (SHA-256 and SHA-384) of the zone's active key-signing keys, as a synced box reports them. */
async function servedDs(
  zone: ZoneRecord,
  boxes: readonly LiveBox[],
): Promise<{ dnskeys: string[]; ds: DsEntry[] }> {
  const keys = await mustReadFromSynced(boxes, (box) => box.client.listCryptokeys(zone.name))
  // Flag bit 0 (value 1) is SEP: 257 marks the KSK or CSK the parent's DS must point at.
  const signing = keys.value.filter((key) => key.active && (key.flags & 1) === 1)
  const ds = signing.flatMap((key) =>
    key.ds
      .map(parseDs)
      .filter((entry): entry is DsEntry => entry !== null && DS_DIGEST_TYPES.has(entry.digestType)),
  )
  if (ds.length === 0) {
    throw new AppError(
      'upstream_failed',
      `${keys.box.hostname} reports no active key-signing key for ${zone.name}`,
    )
  }
  return { dnskeys: signing.map((key) => key.dnskey), ds }
}

export const dnssecProcedures = {
  setDnssec: procedure({
    kind: 'mutation',
    permission: 'settings:edit',
    audit: 'zone.set-dnssec',
    summary: 'Turn DNSSEC signing on or off; every box signs with the same keys, which stay on PowerDNS',
    input: z.strictObject({ id: z.string().min(1), enabled: z.boolean() }),
    output: DnssecResultSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
      let outcomes: BoxOutcome[]
      if (input.enabled) {
        outcomes = await enableSigning(zone, boxes)
      } else {
        outcomes = await writeToBoxes(boxes, (box) => unsignAt(box.client, zone.name))
        assertWriteTook(outcomes)
      }
      const now = new Date()
      const update = syncUpdates(ctx.db, zone.id, outcomes, now)
      await ctx.commit(
        [
          ...update.writes,
          ctx.db
            .update(dnsZones)
            .set({ dnssec: input.enabled, updatedAt: now })
            .where(eq(dnsZones.id, zone.id)),
        ],
        { targetId: zone.id, detail: { enabled: input.enabled, behind: update.behind } },
      )
      await enqueueZoneSync(
        ctx.env,
        update.behind.map((nodeId) => ({ zoneId: zone.id, nodeId })),
        true,
      )
      return { zoneId: zone.id, dnssec: input.enabled, boxes: update.results }
    },
  }),
  getDsRecord: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'The DS records to enter at the registrar for a signed zone',
    input: IdInputSchema,
    output: DsResultSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      if (!zone.dnssec) throw conflict(`DNSSEC is off for ${zone.name}; turn it on with setDnssec first`)
      const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
      const { dnskeys, ds } = await servedDs(zone, boxes)
      return {
        zoneId: zone.id,
        name: zone.name,
        dnskeys,
        ds: ds.map((entry) => ({ ...entry, record: `${zone.name}. IN DS ${dsText(entry)}` })),
      }
    },
  }),
  verifyDs: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: "Compare the DS the parent publishes with the zone's signing keys (no DS for an unsigned zone)",
    input: IdInputSchema,
    output: DnsCheckSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      let expected: string[] = []
      if (zone.dnssec) {
        const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
        expected = (await servedDs(zone, boxes)).ds.map(dsText)
      }
      const found = await publicLookup(ctx.env, zone.name, 'DS')
      return dsCheck(zone.name, expected, found)
    },
  }),
}

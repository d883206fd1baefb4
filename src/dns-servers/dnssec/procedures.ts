import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { dnsZones } from '../../db/schema/dns-servers'
import { IdInputSchema } from '../../lib/schemas'
import { procedure } from '../../rpc/define'
import { AppError, conflict } from '../../rpc/errors'
import { publicLookup } from '../lookup'
import { type LiveBox, servingBoxes } from '../nameservers/box-clients'
import { mustReadFromCurrent } from '../nameservers/box-reads'
import { getZone, type ZoneRecord, zoneBoxEntries } from '../rows'
import { DnsCheckSchema, DnssecResultSchema, DsResultSchema } from '../schemas'
import { type BoxOutcome, missedIt, tookIt, writeToBoxes } from '../sync/fan-out'
import { enqueueZoneSync } from '../sync/queue'
import { writeChange } from '../zones/change'
import { dsCheck } from '../zones/delegation'
import { copySigningKeys, DS_DIGEST_TYPES, type DsEntry, dsText, parseDs, signAt, unsignAt } from './dnssec'

/**
 * Signs at the first box with current records that manages to, then copies its keys to every other box. When
 * none can sign, every box is reported as missing the change.
 */
async function enableSigning(zone: ZoneRecord, boxes: readonly LiveBox[]): Promise<BoxOutcome[]> {
  const failures: BoxOutcome[] = []
  for (const source of boxes.filter((box) => box.recordsCurrent)) {
    try {
      await signAt(source.client, zone.name)
    } catch (error) {
      failures.push(missedIt(source, error))
      continue
    }
    const others = boxes.filter((box) => box !== source)
    const copied = await writeToBoxes(others, (box) => copySigningKeys(source.client, box.client, zone.name))
    return [tookIt(source), ...copied]
  }
  const untried = boxes.filter((box) => !failures.some((f) => f.box === box))
  return [
    ...failures,
    ...untried.map((box) => missedIt(box, new Error('no box with current records could sign'))),
  ]
}

/** The DS records (SHA-256 and SHA-384) of the zone's active key-signing keys, as a synced box reports them. */
async function servedDs(
  zone: ZoneRecord,
  boxes: readonly LiveBox[],
): Promise<{ dnskeys: string[]; ds: DsEntry[] }> {
  const keys = await mustReadFromCurrent(boxes, (box) => box.client.listCryptokeys(zone.name))
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
    input: z.strictObject({ id: z.string().min(1).max(128), enabled: z.boolean() }),
    output: DnssecResultSchema,
    errors: ['not_found', 'conflict', 'upstream_failed'],
    async handler(input, ctx) {
      const zone = await getZone(ctx.db, input.id)
      const boxes = await servingBoxes(ctx.env, await zoneBoxEntries(ctx.db, zone.id))
      const now = new Date()
      // A refusal to sign is the box's configuration (no DNSSEC-capable backend), never the input: no 400.
      const settled = await writeChange(
        ctx.db,
        ctx.env,
        zone.id,
        boxes,
        input.enabled
          ? (targets) => enableSigning(zone, targets)
          : (targets) => writeToBoxes(targets, (box) => unsignAt(box.client, zone.name)),
        null,
        now,
      )
      await ctx.commit(
        [
          ...settled.writes,
          ctx.db
            .update(dnsZones)
            .set({ dnssec: input.enabled, updatedAt: now })
            .where(eq(dnsZones.id, zone.id)),
        ],
        { targetId: zone.id, detail: { enabled: input.enabled, behind: settled.behind } },
      )
      await enqueueZoneSync(ctx.env, settled.jobs)
      return { zoneId: zone.id, dnssec: input.enabled, boxes: settled.results }
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

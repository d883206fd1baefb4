import { z } from '@hono/zod-openapi'
import { NodeFieldsSchema } from '../fleet/schemas'
import { bareName } from '../lib/dns-name'
import { HostnameSchema, HttpUrlSchema } from '../lib/schemas'
import { MAX_VALUES, RECORD_TYPES, TTL_MAX, TTL_MIN } from './records/validation'

export const SyncStateSchema = z.enum(['synced', 'pending', 'failed'])
export type SyncState = z.infer<typeof SyncStateSchema>

/** A zone or host name: a lowercase hostname with at least two labels, stored without the trailing dot. */
export const FqdnSchema = HostnameSchema.transform(bareName).refine(
  (name) => name.includes('.'),
  'must have at least two labels, e.g. example.com',
)

export const PowerDnsInputSchema = z.strictObject({
  apiUrl: HttpUrlSchema,
  apiKey: z.string().min(1).max(512),
  serverId: z.string().min(1).max(100).default('localhost'),
})

export const EnrollNameserverSchema = NodeFieldsSchema.pick({ name: true, agentUrl: true, agentSecret: true })
  .extend({
    hostname: FqdnSchema,
    publicIpv4: z.ipv4(),
    publicIpv6: z.ipv6().optional(),
    powerDns: PowerDnsInputSchema.optional(),
  })
  .openapi('EnrollNameserverInput')

export const NameserverRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    hostname: z.string(),
    publicIpv4: z.string().nullable(),
    publicIpv6: z.string().nullable(),
    agentUrl: z.string(),
    hasAgentSecret: z.literal(true),
    powerDns: z
      .object({ apiUrl: z.string(), serverId: z.string(), hasApiKey: z.literal(true) })
      .nullable()
      .openapi({ description: 'null until PowerDNS is installed or adopted; the API key is never returned' }),
    health: z
      .object({
        checkedAt: z.iso.datetime().nullable(),
        ok: z.boolean().nullable(),
        detail: z.string().nullable(),
      })
      .openapi({ description: 'the last NS-health (glue) check; all null before the first' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('NameserverRow')
export type NameserverRow = z.infer<typeof NameserverRowSchema>

/** The outcome of comparing what DNS publishes with what the panel expects. */
export const DnsCheckSchema = z
  .object({ ok: z.boolean(), expected: z.array(z.string()), found: z.array(z.string()), detail: z.string() })
  .openapi('DnsCheck')
export type DnsCheck = z.infer<typeof DnsCheckSchema>

export const GlueCheckSchema = DnsCheckSchema.extend({ checkedAt: z.iso.datetime() }).openapi('GlueCheck')

export const ZoneBoxSchema = z
  .object({
    nodeId: z.string(),
    name: z.string(),
    hostname: z.string(),
    state: SyncStateSchema,
    lastError: z.string().nullable(),
    attempts: z.number().int(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('ZoneBox')
export type ZoneBox = z.infer<typeof ZoneBoxSchema>

export const ZoneRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    dnssec: z.boolean(),
    boxes: z.array(ZoneBoxSchema),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('ZoneRow')
export type ZoneRow = z.infer<typeof ZoneRowSchema>

export const RecordTypeSchema = z.enum(RECORD_TYPES)

export const RecordSetSchema = z
  .object({ name: z.string(), type: z.string(), ttl: z.number().int(), values: z.array(z.string()) })
  .openapi('RecordSet')

export const ZoneDetailSchema = ZoneRowSchema.extend({
  records: z
    .array(RecordSetSchema)
    .nullable()
    .openapi({ description: 'read live from a synced box; null when none answered' }),
  recordsFrom: z
    .string()
    .nullable()
    .openapi({ description: 'the node id of the box the records were read from' }),
  recordsError: z.string().nullable(),
}).openapi('ZoneDetail')

export const UpsertRecordSchema = z
  .strictObject({
    id: z.string().min(1).max(128),
    name: z.string().min(1).max(253),
    type: RecordTypeSchema,
    ttl: z.number().int().min(TTL_MIN).max(TTL_MAX),
    values: z.array(z.string().max(4096)).min(1).max(MAX_VALUES),
  })
  .openapi('UpsertRecordInput')

export const DeleteRecordSchema = z
  .strictObject({ id: z.string().min(1).max(128), name: z.string().min(1).max(253), type: RecordTypeSchema })
  .openapi('DeleteRecordInput')

export const BoxWriteSchema = z
  .object({
    nodeId: z.string(),
    name: z.string(),
    written: z.boolean(),
    error: z.string().nullable(),
    state: SyncStateSchema,
  })
  .openapi('BoxWrite')
export type BoxWrite = z.infer<typeof BoxWriteSchema>

export const RecordWriteResultSchema = z
  .object({
    zoneId: z.string(),
    name: z.string(),
    type: z.string(),
    record: RecordSetSchema.nullable().openapi({
      description: 'the record set now served; null after a delete',
    }),
    boxes: z.array(BoxWriteSchema),
  })
  .openapi('RecordWriteResult')

export const DnssecResultSchema = z
  .object({ zoneId: z.string(), dnssec: z.boolean(), boxes: z.array(BoxWriteSchema) })
  .openapi('DnssecResult')

export const DsRecordSchema = z
  .object({
    keyTag: z.number().int(),
    algorithm: z.number().int(),
    digestType: z.number().int(),
    digest: z.string(),
    record: z.string().openapi({ example: 'example.com. IN DS 56809 13 2 d1ae0e7c…' }),
  })
  .openapi('DsRecord')

export const DsResultSchema = z
  .object({ zoneId: z.string(), name: z.string(), dnskeys: z.array(z.string()), ds: z.array(DsRecordSchema) })
  .openapi('DsResult')

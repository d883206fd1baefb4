import { z } from '@hono/zod-openapi'
import { DELIVERY_STATUSES, PROBE_STATES, PROBE_TARGET_KINDS, PROBE_TYPES } from '../db/schema/probes'
import { pageInput, SearchSchema } from '../lib/paging'
import { IdSchema, NameSchema } from '../lib/schemas'
import {
  CertConfigSchema,
  DnsConfigSchema,
  HeartbeatConfigSchema,
  HttpConfigSchema,
  NotifyConfigPatchSchema,
  NotifyConfigSchema,
  ProbeConfigPatchSchema,
  ProbeConfigSchema,
  TcpConfigSchema,
} from './config'
import { LocationInputSchema, ProbeLocationSchema } from './locations/schema'

export const ProbeTypeSchema = z.enum(PROBE_TYPES)
export const ProbeTargetKindSchema = z.enum(PROBE_TARGET_KINDS)
export const ProbeStateSchema = z.enum(PROBE_STATES)
const CheckOutcomeSchema = z.enum(['up', 'down', 'degraded'])

export const ProbeLastResultSchema = z
  .object({
    at: z.iso.datetime(),
    outcome: CheckOutcomeSchema,
    latencyMs: z.number().int().nullable(),
    detail: z.string(),
  })
  .openapi('ProbeLastResult')

export const ProbeSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: ProbeTypeSchema,
    targetKind: ProbeTargetKindSchema,
    targetId: z.string().nullable(),
    target: z.string(),
    location: ProbeLocationSchema,
    state: ProbeStateSchema,
    enabled: z.boolean(),
    consecutiveFailures: z.number().int(),
    lastResult: ProbeLastResultSchema.nullable(),
    lastCheckedAt: z.iso.datetime().nullable(),
    lastChangedAt: z.iso.datetime().nullable(),
    config: ProbeConfigSchema,
    notifyConfig: NotifyConfigSchema,
    hasWebhookSecret: z.boolean(),
    archivedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi('ProbeSummary')

export const PROBE_RESULT_ROW_KINDS = ['event', 'raw', 'hourly', 'daily'] as const

/**
 * One row of a probe's history: a state-change event, a raw check result, or an hourly or daily rollup.
 * `upRatio` is, for a rollup, the share of checks that answered (up or degraded) in basis points, 10000 when there
 * were none; for a raw result or an event, its state's: 10000 for up, degraded and paused, 0 for down and flapping.
 */
export const ProbeResultRowSchema = z
  .object({
    probeId: z.string(),
    kind: z.enum(PROBE_RESULT_ROW_KINDS),
    /** The event's or result's time; a rollup's bucket start. */
    at: z.iso.datetime(),
    /** An event's new state, a raw result's outcome; null for rollups. */
    state: ProbeStateSchema.nullable(),
    /** An event's state before the change; null otherwise. */
    previousState: ProbeStateSchema.nullable(),
    upRatio: z.number().int().min(0).max(10_000).openapi({
      description:
        'Availability in basis points. A rollup: the share of its checks that answered (up or degraded), 10000 when it has none. A raw result or an event: its state’s — 10000 for up, degraded and paused (nothing measured, no downtime), 0 for down and flapping',
    }),
    checks: z.number().int().min(0),
    failures: z.number().int().min(0),
    degraded: z.number().int().min(0),
    /** The result's latency, or a rollup's mean; null when nothing was timed. */
    latencyMs: z.number().int().nullable(),
    /** A rollup's slowest check. */
    latencyMaxMs: z.number().int().nullable(),
    /** A closed rollup's exact latency percentiles over its timed checks; null for events, raw results and empty buckets. */
    latencyP50Ms: z.number().int().nullable(),
    latencyP95Ms: z.number().int().nullable(),
    latencyP99Ms: z.number().int().nullable(),
    /** The location that produced a raw result (`panel` or a node's location); null for rollups and events. */
    location: z.string().nullable(),
    detail: z.string().nullable(),
  })
  .openapi('ProbeResultRow')

export const ProbeDeliverySchema = z
  .object({
    target: z.string(),
    status: z
      .enum(DELIVERY_STATUSES)
      .describe('withheld: a maintenance window held it back (lastError says which)'),
    event: z.string(),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    lastAttemptAt: z.iso.datetime().nullable(),
  })
  .openapi('ProbeDelivery')

export const LastPingSchema = z
  .object({
    at: z.iso.datetime(),
    signal: z.enum(['success', 'start', 'fail']),
    exitStatus: z.number().int().nullable(),
    body: z.string(),
    durationMs: z.number().int().nullable(),
  })
  .openapi('ProbeLastPing')

export const ProbeDetailSchema = ProbeSummarySchema.extend({
  /** State changes, newest first (the latest 100). */
  events: z.array(ProbeResultRowSchema),
  /** The last notification per target. */
  deliveries: z.array(ProbeDeliverySchema),
  /** A heartbeat's last ping; null for other types or before the first. */
  lastPing: LastPingSchema.nullable(),
}).openapi('ProbeDetail')

/** A secret shown once: on create and on token rotation of a heartbeat probe. */
export const HeartbeatUrlSchema = z.object({
  heartbeatToken: z.string(),
  heartbeatUrl: z.url(),
})

export const ProbeCreatedSchema = ProbeSummarySchema.extend({
  heartbeatToken: z.string().nullable(),
  heartbeatUrl: z.url().nullable(),
}).openapi('ProbeCreated')

const WebhookSecretSchema = z.string().min(16).max(256)

/** One type's create input: the fields every probe has, and `config` as that type's (each key defaulted). */
function createInput<T extends z.infer<typeof ProbeTypeSchema>, C extends z.ZodType>(type: T, config: C) {
  return z.strictObject({
    name: NameSchema,
    type: z.literal(type, { error: `expected one of ${PROBE_TYPES.join(', ')}` }),
    targetKind: ProbeTargetKindSchema,
    targetId: IdSchema.optional(),
    target: z.string().trim().min(1).max(2048),
    /** Where the checks run (default `edge`); a heartbeat takes none. */
    location: LocationInputSchema.optional(),
    config: config.optional(),
    notifyConfig: NotifyConfigSchema.optional(),
    webhookSecret: WebhookSecretSchema.optional(),
    enabled: z.boolean().optional(),
  })
}

/**
 * One body per type. A body with no known type is checked against every type (`unionFallback`), so its other
 * mistakes (an unknown field, a missing name) are named beside the type.
 */
export const CreateProbeInputSchema = z.discriminatedUnion(
  'type',
  [
    createInput('http', HttpConfigSchema),
    createInput('tcp', TcpConfigSchema),
    createInput('dns', DnsConfigSchema),
    createInput('cert', CertConfigSchema),
    createInput('heartbeat', HeartbeatConfigSchema),
  ],
  { unionFallback: true },
)

export const UpdateProbeInputSchema = z.strictObject({
  id: IdSchema,
  name: NameSchema.optional(),
  location: LocationInputSchema.optional(),
  config: ProbeConfigPatchSchema.optional(),
  notifyConfig: NotifyConfigPatchSchema.optional(),
  enabled: z.boolean().optional(),
  webhookSecret: WebhookSecretSchema.nullable().optional(),
})

export const ListProbesInputSchema = z.strictObject({
  targetKind: ProbeTargetKindSchema.optional(),
  targetId: IdSchema.optional(),
  includeArchived: z.boolean().optional(),
  search: SearchSchema.optional().describe(
    'Only probes whose name or target contains this text (case-insensitive)',
  ),
  ...pageInput,
})

export const HistoryInputSchema = z
  .strictObject({
    id: IdSchema,
    granularity: z.enum(['raw', 'hourly', 'daily']).default('hourly'),
    hours: z.number().int().min(1).max(2160).default(24),
    location: IdSchema.optional().openapi({
      description:
        'Raw results measured at one location only: `edge` (the panel) or a node id. Rollups count the checks, not the locations',
    }),
  })
  .refine((input) => input.location === undefined || input.granularity === 'raw', {
    path: ['location'],
    message: 'reads raw results only: set granularity to raw',
  })

export const WatchInputSchema = z.strictObject({
  targetKind: ProbeTargetKindSchema.optional(),
  targetId: IdSchema.optional(),
  intervalMs: z.number().int().min(250).max(10_000).default(1000),
})

/**
 * One Server-Sent Events event's data: one probe. The stream opens with one per watched probe, then sends one per
 * change of a probe's (state, enabled, lastChangedAt).
 */
export const WatchEventSchema = z
  .object({
    id: z.string().openapi({ description: 'The probe’s id' }),
    name: z.string(),
    state: ProbeStateSchema,
    enabled: z.boolean(),
    lastChangedAt: z.iso.datetime().nullable(),
  })
  .openapi('ProbeWatchEvent', {
    description:
      'The JSON `data` of one event of the probes.watch stream: one probe’s id, name, state, enabled and lastChangedAt',
  })

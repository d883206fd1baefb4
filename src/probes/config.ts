import { z } from '@hono/zod-openapi'
import { HttpUrlSchema, IdSchema } from '../lib/schemas'
import { scheduleProblem, timezoneProblem } from './heartbeat/schedule'

/** The most locations one probe checks from. */
export const MAX_LOCATIONS = 5

// Every key has a default, so `config` may be omitted or partial on create; what is stored is always complete.

/** Keys every probe type has: how often and how patiently it is judged. */
const judging = {
  /** Consecutive failed checks before `down` (a heartbeat's missed deadline or `/fail` counts as one). */
  failureThreshold: z.number().int().min(1).max(20).default(3),
  /** Consecutive good checks before a `down` probe is `up` again. */
  recoveryThreshold: z.number().int().min(1).max(20).default(1),
  /** The window in which state changes are counted for flap detection. */
  flapWindowSeconds: z.number().int().min(60).max(86_400).default(1800),
  /** More state changes than this inside the window make the probe `flapping`. */
  flapThreshold: z.number().int().min(2).max(50).default(5),
}

/** Keys of the actively checked types (http, tcp, dns, cert). */
const checked = {
  ...judging,
  /** Seconds between checks; under 60 the probe's Durable Object alarm runs them, else the minute scan. */
  intervalSeconds: z.number().int().min(10).max(86_400).default(60),
  /** Deadline of one check. */
  timeoutMs: z.number().int().min(500).max(30_000).default(10_000),
  /**
   * How many of the probe's locations must fail in one round for the round to count as a failure (fewer failing
   * make it degraded); absent means all of them. At most the number of locations (422 otherwise).
   */
  confirmations: z.number().int().min(1).max(MAX_LOCATIONS).optional(),
}

export const HttpConfigSchema = z
  .strictObject({
    ...checked,
    method: z.enum(['GET', 'HEAD', 'POST']).default('GET'),
    /** Inclusive range of statuses counted as up. */
    expectedStatus: z
      .strictObject({ min: z.number().int().min(100).max(599), max: z.number().int().min(100).max(599) })
      .refine((range) => range.min <= range.max, { message: 'min must not exceed max' })
      .default({ min: 200, max: 399 }),
    /** Text the body must contain (the first 64 KB are read); absent means any body. */
    keyword: z.string().min(1).max(200).optional(),
    /** An answer slower than this is `degraded`; absent means never. */
    slowMs: z.number().int().min(1).max(30_000).optional(),
    /** Follow up to 5 redirects (each hop checked like the first); by default a redirect is judged as it is. */
    followRedirects: z.boolean().default(false),
  })
  .openapi('HttpProbeConfig')

export const TcpConfigSchema = z.strictObject({ ...checked }).openapi('TcpProbeConfig')

export const DNS_PROBE_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS'] as const

export const DnsConfigSchema = z
  .strictObject({
    ...checked,
    recordType: z.enum(DNS_PROBE_TYPES).default('A'),
    /** Values that must all be in the answer (`degraded` when only some are); empty means any answer. */
    expectedValues: z.array(z.string().min(1).max(255)).max(20).default([]),
  })
  .openapi('DnsProbeConfig')

export const CertConfigSchema = z
  .strictObject({
    ...checked,
    intervalSeconds: z.number().int().min(10).max(86_400).default(3600),
    /** A certificate expiring within this many days is `degraded`; an expired or unreadable one fails. */
    certWarnDays: z.number().int().min(1).max(365).default(14),
  })
  .openapi('CertProbeConfig')

/** Pings are expected this often when a heartbeat names neither an interval nor a schedule. */
export const DEFAULT_HEARTBEAT_INTERVAL_SECONDS = 86_400

export const HeartbeatConfigSchema = z
  .strictObject({
    ...judging,
    failureThreshold: z.number().int().min(1).max(20).default(1),
    /**
     * Pings are expected at least this often (86400 when no schedule is set either). Exactly one of
     * intervalSeconds and schedule.
     */
    intervalSeconds: z.number().int().min(30).max(31_536_000).optional(),
    /**
     * A 5-field cron expression (minute hour day-of-month month day-of-week) of when the job runs: a ping is
     * expected by each run, in `timezone`. Exactly one of intervalSeconds and schedule.
     */
    schedule: z.string().trim().min(1).max(100).optional(),
    /** The IANA time zone the schedule runs in (UTC unless set); only with a schedule. */
    timezone: z.string().min(1).max(64).optional(),
    /**
     * How late a ping may be before it counts as missed: `down` at last ping + interval + grace, or at the
     * schedule's next run after the last ping + grace.
     */
    graceSeconds: z.number().int().min(0).max(31_536_000).default(3600),
  })
  .check((ctx) => {
    const config = ctx.value
    const issue = (key: string, message: string) =>
      ctx.issues.push({ code: 'custom', path: [key], message, input: config[key as keyof typeof config] })
    if (config.schedule !== undefined && config.intervalSeconds !== undefined)
      issue(
        'schedule',
        'set either intervalSeconds or schedule, not both (null drops a stored intervalSeconds)',
      )
    if (config.schedule === undefined && config.timezone !== undefined)
      issue('timezone', 'a time zone goes with a schedule only')
    const scheduleIssue = config.schedule === undefined ? null : scheduleProblem(config.schedule)
    if (scheduleIssue !== null) issue('schedule', scheduleIssue)
    const zoneIssue = config.timezone === undefined ? null : timezoneProblem(config.timezone)
    if (zoneIssue !== null) issue('timezone', zoneIssue)
  })
  // What is stored is complete: an interval config names its interval, a schedule its time zone.
  .overwrite((config) =>
    config.schedule === undefined
      ? { ...config, intervalSeconds: config.intervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS }
      : { ...config, timezone: config.timezone ?? 'UTC' },
  )
  .openapi('HeartbeatProbeConfig')

export const PROBE_CONFIG_SCHEMAS = {
  http: HttpConfigSchema,
  tcp: TcpConfigSchema,
  dns: DnsConfigSchema,
  cert: CertConfigSchema,
  heartbeat: HeartbeatConfigSchema,
} as const

export type ProbeType = keyof typeof PROBE_CONFIG_SCHEMAS
export type HttpConfig = z.output<typeof HttpConfigSchema>
export type TcpConfig = z.output<typeof TcpConfigSchema>
export type DnsConfig = z.output<typeof DnsConfigSchema>
export type CertConfig = z.output<typeof CertConfigSchema>
export type HeartbeatConfig = z.output<typeof HeartbeatConfigSchema>
export type ProbeConfig = HttpConfig | TcpConfig | DnsConfig | CertConfig | HeartbeatConfig
export type CheckedConfig = HttpConfig | TcpConfig | DnsConfig | CertConfig

/** Whether a config is an actively checked type's (it has a check interval; a heartbeat waits for pings). */
export function isCheckedConfig(config: ProbeConfig): config is CheckedConfig {
  return 'timeoutMs' in config
}

/**
 * Any type's config, as documented in reads: the union of the five shapes. tcp's keys are a subset of http's, so
 * it comes first: read back through this union, a tcp config must not match http and gain http's defaults.
 */
export const ProbeConfigSchema = z
  .union([TcpConfigSchema, HttpConfigSchema, DnsConfigSchema, CertConfigSchema, HeartbeatConfigSchema])
  .openapi('ProbeConfig')

export const NotifyConfigSchema = z
  .strictObject({
    /** Addresses mailed on each notified change (through the send_email binding). */
    emails: z.array(z.email().max(254)).max(10).default([]),
    /** Receives a signed POST on each notified change; null for none. */
    webhookUrl: HttpUrlSchema.nullable().default(null),
    /** Notification channels (ids from notifications.channels.list) told on each notified change. */
    channels: z
      .array(IdSchema)
      .max(10)
      .refine((ids) => new Set(ids).size === ids.length, 'must not name a channel twice')
      .default([]),
    /** Least time between two notifications of the probe. */
    cooldownSeconds: z.number().int().min(0).max(86_400).default(300),
    /** At most this many notifications in any 60 minutes. */
    maxPerHour: z.number().int().min(1).max(60).default(10),
    /** While down, notify again every this many minutes; 0 never repeats. */
    repeatWhileDownMinutes: z.number().int().min(0).max(10_080).default(0),
  })
  .openapi('ProbeNotifyConfig')

export type ProbeNotifyConfig = z.output<typeof NotifyConfigSchema>

/** A config's keys as a patch: each optional, and null to drop a stored value so its default applies again. */
type Patch<T> = { [K in keyof T]?: Exclude<T[K], undefined> | null | undefined }

function bare(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodDefault || schema instanceof z.ZodOptional
    ? bare(schema.unwrap() as z.ZodType)
    : schema
}

/**
 * The patch schema of a config schema: the same keys and checks, no defaults (a patch fills in nothing, so it
 * never overwrites a stored key it does not name), each key nullable and optional, unknown keys refused.
 */
function patchOf<S extends z.ZodObject>(schema: S): z.ZodType<Patch<z.output<S>>, Patch<z.input<S>>> {
  const shape = Object.entries(schema.shape as Record<string, z.ZodType>).map(
    ([key, value]) => [key, bare(value).nullable().optional()] as const,
  )
  // zod types the mapped shape loosely; Patch says what it is.
  return z.strictObject(Object.fromEntries(shape)) as unknown as z.ZodType<
    Patch<z.output<S>>,
    Patch<z.input<S>>
  >
}

/**
 * What probes.update lays over a stored config: the keys of any one type (checked against the probe's own type
 * by the handler, which names a key of another type as unknown). A patch has no defaults, so whichever option
 * matches, it comes through as sent.
 */
export const ProbeConfigPatchSchema = z
  .union([
    patchOf(TcpConfigSchema).openapi('TcpProbeConfigPatch'),
    patchOf(HttpConfigSchema).openapi('HttpProbeConfigPatch'),
    patchOf(DnsConfigSchema).openapi('DnsProbeConfigPatch'),
    patchOf(CertConfigSchema).openapi('CertProbeConfigPatch'),
    patchOf(HeartbeatConfigSchema).openapi('HeartbeatProbeConfigPatch'),
  ])
  .openapi('ProbeConfigPatch')

/** What probes.update lays over a stored notifyConfig. */
export const NotifyConfigPatchSchema = patchOf(NotifyConfigSchema).openapi('ProbeNotifyConfigPatch')

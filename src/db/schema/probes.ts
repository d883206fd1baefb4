import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { ProbeConfig, ProbeNotifyConfig } from '../../probes/config'
import type { ProbeLastResult } from '../../probes/monitor/api'

export const PROBE_TYPES = ['http', 'tcp', 'dns', 'cert', 'heartbeat'] as const
export const PROBE_TARGET_KINDS = ['node', 'instance', 'site', 'domain', 'external'] as const
export const PROBE_STATES = ['up', 'down', 'degraded', 'flapping', 'paused'] as const

/**
 * The probe catalogue. The probe's ProbeMonitor Durable Object owns its live state; it writes the state columns
 * here when the state changes and the check counters when it flushes (at most a minute behind).
 * `nextCheckAt` is set only for probes the minute scan runs (enabled, not archived, not heartbeat, interval of a
 * minute or more), so the scan's index holds just those.
 */
export const probes = sqliteTable(
  'probes',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    type: text('type', { enum: PROBE_TYPES }).notNull(),
    targetKind: text('target_kind', { enum: PROBE_TARGET_KINDS }).notNull(),
    targetId: text('target_id'),
    target: text('target').notNull(),
    /**
     * Where the checks run: `edge` (the panel itself) and/or node ids, 1 to 5 distinct, in the order given.
     * Heartbeats keep the default and ignore it (pings come to the panel).
     */
    locations: text('locations', { mode: 'json' }).$type<string[]>().notNull().default(['edge']),
    config: text('config', { mode: 'json' }).$type<ProbeConfig>().notNull(),
    notifyConfig: text('notify_config', { mode: 'json' }).$type<ProbeNotifyConfig>().notNull(),
    /** Sealed with SECRETS_KEY; null when none is set. */
    webhookSecret: text('webhook_secret'),
    /** SHA-256 hex of the heartbeat token's secret part; null for other types. */
    heartbeatTokenHash: text('heartbeat_token_hash'),
    state: text('state', { enum: PROBE_STATES }).notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    consecutiveFailures: integer('consecutive_failures').notNull(),
    lastResult: text('last_result', { mode: 'json' }).$type<ProbeLastResult>(),
    lastCheckedAt: integer('last_checked_at', { mode: 'timestamp_ms' }),
    lastChangedAt: integer('last_changed_at', { mode: 'timestamp_ms' }),
    nextCheckAt: integer('next_check_at', { mode: 'timestamp_ms' }),
    archivedAt: integer('archived_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    /**
     * The updatedAt (ms) the probe's monitor last confirmed it holds; null before the first. A row whose monitor
     * is behind (a configure that failed after the commit) is configured again by the minute sweep.
     */
    monitorVersion: integer('monitor_version'),
  },
  (t) => [
    index('probes_due_idx').on(t.nextCheckAt).where(sql`${t.nextCheckAt} is not null`),
    index('probes_monitor_behind_idx').on(t.updatedAt).where(sql`${t.monitorVersion} is not ${t.updatedAt}`),
    index('probes_target_idx').on(t.targetKind, t.targetId, t.createdAt),
    index('probes_created_idx').on(t.createdAt),
  ],
)

export const PROBE_RESULT_KINDS = ['raw', 'event'] as const

/**
 * Raw check results (pruned after the raw retention) and state-change events (kept). Events are the probe's
 * event log; there is no separate incidents table.
 */
export const probeResults = sqliteTable(
  'probe_results',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    probeId: text('probe_id')
      .notNull()
      .references(() => probes.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: PROBE_RESULT_KINDS }).notNull(),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
    /** The check's outcome for a raw row; the new state for an event. */
    state: text('state', { enum: PROBE_STATES }).notNull(),
    /** An event's state before the change; null for raw rows. */
    previousState: text('previous_state', { enum: PROBE_STATES }),
    latencyMs: integer('latency_ms'),
    detail: text('detail'),
  },
  (t) => [index('probe_results_probe_idx').on(t.probeId, t.kind, t.at)],
)

export const ROLLUP_GRANULARITIES = ['hourly', 'daily'] as const

/** Check counts per probe and hour or day, incremented as results arrive (never recomputed). */
export const probeRollups = sqliteTable(
  'probe_rollups',
  {
    probeId: text('probe_id')
      .notNull()
      .references(() => probes.id, { onDelete: 'cascade' }),
    granularity: text('granularity', { enum: ROLLUP_GRANULARITIES }).notNull(),
    bucketStart: integer('bucket_start', { mode: 'timestamp_ms' }).notNull(),
    up: integer('up').notNull(),
    down: integer('down').notNull(),
    degraded: integer('degraded').notNull(),
    latencySumMs: integer('latency_sum_ms').notNull(),
    latencyCount: integer('latency_count').notNull(),
    latencyMaxMs: integer('latency_max_ms'),
    /** Exact percentiles of the bucket's timed checks, written when the bucket closes; null while open or untimed. */
    latencyP50Ms: integer('latency_p50_ms'),
    latencyP95Ms: integer('latency_p95_ms'),
    latencyP99Ms: integer('latency_p99_ms'),
    /** Timed checks per latency bucket (src/probes/latency-buckets.ts) as a JSON array; null when none was timed. */
    latencyBuckets: text('latency_buckets'),
  },
  (t) => [primaryKey({ columns: [t.probeId, t.granularity, t.bucketStart] })],
)

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'withheld'] as const

/** The last notification delivery per probe and target (`webhook`, or `email:<address>`). */
export const probeDeliveries = sqliteTable(
  'probe_deliveries',
  {
    probeId: text('probe_id')
      .notNull()
      .references(() => probes.id, { onDelete: 'cascade' }),
    target: text('target').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    /** The state change the delivery announces. */
    event: text('event').notNull(),
    attempts: integer('attempts').notNull(),
    lastError: text('last_error'),
    lastAttemptAt: integer('last_attempt_at', { mode: 'timestamp_ms' }),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.probeId, t.target] })],
)

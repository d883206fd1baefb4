import type { z } from '@hono/zod-openapi'
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { type probeDeliveries, probes } from '../db/schema/probes'
import { notFound } from '../rpc/errors'
import { locationOf } from './locations/schema'
import type { LiveState, MonitorSnapshot } from './monitor/api'
import type { ProbeDeliverySchema, ProbeResultRowSchema, ProbeSummarySchema } from './schemas'

export type ProbeRecord = typeof probes.$inferSelect
export type ProbeSummary = z.input<typeof ProbeSummarySchema>
export type ProbeResultRow = z.input<typeof ProbeResultRowSchema>
type DeliveryRecord = typeof probeDeliveries.$inferSelect

const iso = (date: Date | null) => (date ? date.toISOString() : null)
const isoMs = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The probe row, if there is one. */
export async function findProbeRecord(db: Db, id: string): Promise<ProbeRecord | undefined> {
  const [row] = await db.select().from(probes).where(eq(probes.id, id)).limit(1)
  return row
}

/** The rows of the probes named (those that exist): one statement, whatever the count. */
export function probeRecordsQuery(db: Db, ids: readonly string[]) {
  // One JSON parameter rather than one per id: D1 binds at most 100 per statement.
  return db
    .select()
    .from(probes)
    .where(sql`${probes.id} in (select value from json_each(${JSON.stringify(ids)}))`)
}

/** The probe row, or 404. */
export async function getProbeRecord(db: Db, id: string): Promise<ProbeRecord> {
  const row = await findProbeRecord(db, id)
  if (!row) throw notFound(`probe ${id}`)
  return row
}

/** What the probe's monitor is told of the catalogue row; its version is the row's updatedAt. */
export function toSnapshot(row: ProbeRecord): MonitorSnapshot {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    targetKind: row.targetKind,
    targetId: row.targetId,
    target: row.target,
    locations: row.locations,
    enabled: row.enabled,
    archived: row.archivedAt !== null,
    config: row.config,
    notifyConfig: row.notifyConfig,
    hasWebhookSecret: row.webhookSecret !== null,
    heartbeatTokenHash: row.heartbeatTokenHash,
    version: row.updatedAt.getTime(),
  }
}

/** The API's ProbeSummary; the monitor's live state, when given, replaces the catalogue's copy of the state. */
export function toProbeSummary(row: ProbeRecord, live: LiveState | null = null): ProbeSummary {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    targetKind: row.targetKind,
    targetId: row.targetId,
    target: row.target,
    location: locationOf(row.type, row.locations),
    state: live ? live.state : row.state,
    enabled: row.enabled,
    consecutiveFailures: live ? live.consecutiveFailures : row.consecutiveFailures,
    lastResult: live ? live.lastResult : row.lastResult,
    lastCheckedAt: live ? isoMs(live.lastCheckedAt) : iso(row.lastCheckedAt),
    lastChangedAt: live ? isoMs(live.lastChangedAt) : iso(row.lastChangedAt),
    config: row.config,
    notifyConfig: row.notifyConfig,
    hasWebhookSecret: row.webhookSecret !== null,
    archivedAt: iso(row.archivedAt),
    createdAt: row.createdAt.toISOString(),
  }
}

export function toDelivery(row: DeliveryRecord): z.input<typeof ProbeDeliverySchema> {
  return {
    target: row.target,
    status: row.status,
    event: row.event,
    attempts: row.attempts,
    lastError: row.lastError,
    lastAttemptAt: iso(row.lastAttemptAt),
  }
}

/** A `probe_results` row (raw result or event) as D1 returns it. */
export interface ResultRecord {
  probe_id: string
  kind: 'raw' | 'event'
  at: number
  state: ProbeSummary['state']
  previous_state: ProbeSummary['state'] | null
  latency_ms: number | null
  detail: string | null
}

/**
 * A single result's or event's `upRatio`: whether its state counts as available, the way a rollup counts a check.
 * Up and degraded answered (10000), down did not (0). Of the states only events carry, flapping is a failing
 * service (0) and paused measured nothing, which like an empty rollup counts as no downtime (10000).
 */
export function stateUpRatio(state: ProbeSummary['state']): number {
  return state === 'down' || state === 'flapping' ? 0 : 10_000
}

/** A raw result counts as one check; an event counts none (it marks a change, not a measurement). */
export function resultToRow(row: ResultRecord): ProbeResultRow {
  const checked = row.kind === 'raw'
  const failed = checked && row.state === 'down'
  return {
    probeId: row.probe_id,
    kind: row.kind,
    at: new Date(row.at).toISOString(),
    state: row.state,
    previousState: row.previous_state,
    upRatio: stateUpRatio(row.state),
    checks: checked ? 1 : 0,
    failures: failed ? 1 : 0,
    degraded: checked && row.state === 'degraded' ? 1 : 0,
    latencyMs: row.latency_ms,
    latencyMaxMs: null,
    latencyP50Ms: null,
    latencyP95Ms: null,
    latencyP99Ms: null,
    location: null,
    detail: row.detail,
  }
}

/** A `probe_rollups` row as D1 returns it. */
export interface RollupRecord {
  probe_id: string
  granularity: 'hourly' | 'daily'
  bucket_start: number
  up: number
  down: number
  degraded: number
  latency_sum_ms: number
  latency_count: number
  latency_max_ms: number | null
  latency_p50_ms: number | null
  latency_p95_ms: number | null
  latency_p99_ms: number | null
}

/** `upRatio`: the share of checks that answered (up or degraded), in basis points; 10000 for an empty bucket. */
export function rollupToRow(row: RollupRecord): ProbeResultRow {
  const checks = row.up + row.down + row.degraded
  return {
    probeId: row.probe_id,
    kind: row.granularity,
    at: new Date(row.bucket_start).toISOString(),
    state: null,
    previousState: null,
    upRatio: checks === 0 ? 10_000 : Math.floor(((row.up + row.degraded) * 10_000) / checks),
    checks,
    failures: row.down,
    degraded: row.degraded,
    latencyMs: row.latency_count === 0 ? null : Math.round(row.latency_sum_ms / row.latency_count),
    latencyMaxMs: row.latency_max_ms,
    latencyP50Ms: row.latency_p50_ms,
    latencyP95Ms: row.latency_p95_ms,
    latencyP99Ms: row.latency_p99_ms,
    location: null,
    detail: null,
  }
}

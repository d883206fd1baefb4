import type { z } from '@hono/zod-openapi'
import { eq, exists, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { domains } from '../db/schema/domains'
import { instances, nodes, sites } from '../db/schema/fleet'
import type { Env } from '../env'
import { assertOutboundUrl } from '../lib/outbound-url'
import { AppError, invalid, issuesFromZod } from '../rpc/errors'
import { normalizeTarget } from './checks/target'
import {
  NotifyConfigSchema,
  PROBE_CONFIG_SCHEMAS,
  type ProbeConfig,
  type ProbeNotifyConfig,
  type ProbeType,
} from './config'
import { type LocationInput, toLocations } from './locations/schema'
import type { ProbeTargetKind } from './monitor/api'

type Patch = Record<string, unknown>

/** Parses `value` whole; a 400 whose issue paths start with `field` (`config.intervalSeconds`) otherwise. */
function parseField<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const issues = issuesFromZod(parsed.error).map((issue) => ({
    path: issue.path ? `${field}.${issue.path}` : field,
    message: issue.message,
  }))
  throw new AppError('validation_failed', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues })
}

/** The stored value with the patch's keys laid over it; a key patched to null is removed (its default applies). */
export function mergePatch(stored: object, patch: Patch): Patch {
  const merged: Patch = { ...stored }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return merged
}

/** A complete config for the probe type (every key defaulted). */
export function parseConfig(type: ProbeType, value: Patch): ProbeConfig {
  return parseField<ProbeConfig>(PROBE_CONFIG_SCHEMAS[type], value, 'config')
}

/** A complete notifyConfig whose webhook URL passes the outbound rule. */
export function parseNotifyConfig(env: Pick<Env, 'ENVIRONMENT'>, value: Patch): ProbeNotifyConfig {
  const notify = parseField(NotifyConfigSchema, value, 'notifyConfig')
  if (notify.webhookUrl !== null) assertOutboundUrl(env, 'notifyConfig.webhookUrl', notify.webhookUrl)
  return notify
}

/** Alerts are always signed: a webhook URL needs the probe's webhookSecret beside it. */
export function assertSignedWebhook(notify: ProbeNotifyConfig, hasWebhookSecret: boolean): void {
  if (notify.webhookUrl !== null && !hasWebhookSecret)
    throw invalid('notifyConfig.webhookUrl', 'needs a webhookSecret: probe alerts are always signed')
}

/** 400 unless a fleet or domain target names its row and an external one names none. */
export function assertTargetShape(kind: ProbeTargetKind, targetId: string | undefined): void {
  if (kind === 'external' && targetId !== undefined)
    throw invalid('targetId', 'an external probe has no targetId')
  if (kind !== 'external' && targetId === undefined)
    throw invalid('targetId', `a ${kind} probe names its ${kind} by id`)
}

/** True while the row a probe's targetId names exists; for a batch guard beside the probe's insert. */
export function targetExists(db: Db, kind: ProbeTargetKind, targetId: string | null) {
  const one = { one: sql`1` }
  switch (kind) {
    case 'node':
      return exists(
        db
          .select(one)
          .from(nodes)
          .where(eq(nodes.id, targetId ?? '')),
      )
    case 'instance':
      return exists(
        db
          .select(one)
          .from(instances)
          .where(eq(instances.id, targetId ?? '')),
      )
    case 'site':
      return exists(
        db
          .select(one)
          .from(sites)
          .where(eq(sites.id, targetId ?? '')),
      )
    case 'domain':
      return exists(
        db
          .select(one)
          .from(domains)
          .where(eq(domains.id, targetId ?? '')),
      )
    case 'external':
      return sql`1`
  }
}

/** The locations a probe of `type` checks from: `edge` unless set; a heartbeat takes none (400 naming `location`). */
export function parseLocations(type: ProbeType, input: LocationInput | undefined): string[] {
  if (type !== 'heartbeat') return toLocations(input)
  if (input !== undefined)
    throw invalid('location', 'a heartbeat has no location: its pings come to the panel')
  return toLocations(undefined)
}

/** 422 naming `config.confirmations` when it asks more locations to fail than the probe checks from. */
export function assertConfirmationsFit(config: ProbeConfig, locations: readonly string[]): void {
  const confirmations = 'confirmations' in config ? config.confirmations : undefined
  if (confirmations === undefined || confirmations <= locations.length) return
  const message = `is ${confirmations}, but the probe checks from ${locations.length} location${locations.length === 1 ? '' : 's'}: set it to at most ${locations.length}, or null for all of them`
  throw new AppError('unprocessable', `config.confirmations: ${message}`, {
    issues: [{ path: 'config.confirmations', message }],
  })
}

/** 400 naming `location` when the edge joins the locations of a probe whose target the outbound rule refuses. */
export function assertEdgeMayCheck(env: Pick<Env, 'ENVIRONMENT'>, type: ProbeType, target: string): void {
  try {
    normalizeTarget(env, type, target, true)
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    const why = error.extra.issues?.[0]?.message ?? error.detail
    throw invalid('location', `the edge may not check ${target}: it ${why}; check it from nodes only`)
  }
}

import { z } from '@hono/zod-openapi'
import { and, eq, isNull, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { Db } from '../db/client'
import { probes } from '../db/schema/probes'
import { IdInputSchema, IdSchema } from '../lib/schemas'
import { sealSecret } from '../lib/secrets'
import { assertChannelsExist } from '../notifications/channel-store'
import { procedure } from '../rpc/define'
import { conflict, notFound } from '../rpc/errors'
import { isScanned } from './checks/scan-cron'
import { normalizeTarget } from './checks/target'
import { mintHeartbeatToken } from './heartbeat/token'
import { assertNodesMayCheck } from './locations/node-rule'
import { assertLocationNodes, locationNodes, locationNodesExist } from './locations/nodes'
import { EDGE } from './locations/schema'
import { configureMonitor, heartbeatUrl } from './monitor/configure'
import {
  assertConfirmationsFit,
  assertEdgeMayCheck,
  assertSignedWebhook,
  assertTargetShape,
  mergePatch,
  parseConfig,
  parseLocations,
  parseNotifyConfig,
  targetExists,
} from './probe-input'
import { findProbeRecord, getProbeRecord, type ProbeRecord, toProbeSummary } from './rows'
import {
  CreateProbeInputSchema,
  HeartbeatUrlSchema,
  ProbeCreatedSchema,
  ProbeSummarySchema,
  UpdateProbeInputSchema,
} from './schemas'

const scanned = (row: ProbeRecord) => isScanned({ ...row, archived: row.archivedAt !== null })

/**
 * The next check of a changed probe: none unless the scan runs it; now when its config or enabled flag changed
 * (or it had none); otherwise undefined, leaving the scan's own schedule alone.
 */
function rescheduled(before: ProbeRecord, after: ProbeRecord, now: Date): Date | null | undefined {
  if (!scanned(after)) return null
  const same = before.config === after.config && before.enabled === after.enabled
  return same && before.nextCheckAt ? undefined : now
}

/** The row as read, still there and not archived: the guard of every change but create. */
const unchangedSince = (row: ProbeRecord) =>
  and(eq(probes.id, row.id), eq(probes.updatedAt, row.updatedAt), isNull(probes.archivedAt))

/** Why a guarded change lost: the probe is gone (404), archived or changed meanwhile (409). */
const lostRace = (db: Db, id: string) => async () => {
  const now = await findProbeRecord(db, id)
  if (!now) return notFound(`probe ${id}`)
  if (now.archivedAt) return conflict(`probe ${id} was archived meanwhile`)
  return conflict(`probe ${id} changed meanwhile; read it again and retry`)
}

function assertNotArchived(row: ProbeRecord): void {
  if (row.archivedAt) throw conflict(`probe ${row.id} is archived; an archived probe does not change`)
}

/** The writes of a guarded change to the catalogue columns. */
function guardedUpdate(db: Db, row: ProbeRecord, changes: Partial<ProbeRecord>) {
  return [db.update(probes).set(changes).where(unchangedSince(row)), failUnless(db, sql`changes() = 1`)]
}

/** The guarded update taking `row` to `next`: the named columns, updatedAt, and nextCheckAt (set on `next`) when it moves. */
function changeTo(db: Db, row: ProbeRecord, next: ProbeRecord, columns: readonly (keyof ProbeRecord)[]) {
  const nextCheckAt = rescheduled(row, next, next.updatedAt)
  if (nextCheckAt !== undefined) next.nextCheckAt = nextCheckAt
  const changed: (keyof ProbeRecord)[] = [...columns, 'updatedAt']
  if (nextCheckAt !== undefined) changed.push('nextCheckAt')
  return guardedUpdate(db, row, Object.fromEntries(changed.map((key) => [key, next[key]])))
}

export const manageProbesProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'probe.create',
    summary:
      "Create a probe; it starts paused until its first result. A heartbeat probe's token and URL are shown once",
    input: CreateProbeInputSchema,
    output: ProbeCreatedSchema,
    errors: ['not_found', 'unprocessable'],
    async handler(input, ctx) {
      assertTargetShape(input.targetKind, input.targetId)
      const locations = parseLocations(input.type, input.location)
      const target = normalizeTarget(ctx.env, input.type, input.target, locations.includes(EDGE))
      const config = parseConfig(input.type, input.config ?? {})
      assertConfirmationsFit(config, locations)
      const notifyConfig = parseNotifyConfig(ctx.env, input.notifyConfig ?? {})
      assertSignedWebhook(notifyConfig, input.webhookSecret !== undefined)
      await assertChannelsExist(ctx.db, notifyConfig.channels)
      assertNodesMayCheck({ type: input.type, target, config }, await locationNodes(ctx.db, locations))
      const id = crypto.randomUUID()
      const heartbeat = input.type === 'heartbeat' ? await mintHeartbeatToken(id) : null
      const now = new Date()
      const row: ProbeRecord = {
        id,
        name: input.name,
        type: input.type,
        targetKind: input.targetKind,
        targetId: input.targetId ?? null,
        target,
        locations,
        config,
        notifyConfig,
        webhookSecret: input.webhookSecret ? await sealSecret(ctx.env, input.webhookSecret) : null,
        heartbeatTokenHash: heartbeat?.hash ?? null,
        state: 'paused',
        enabled: input.enabled ?? true,
        consecutiveFailures: 0,
        lastResult: null,
        lastCheckedAt: null,
        lastChangedAt: null,
        nextCheckAt: null,
        archivedAt: null,
        createdAt: now,
        updatedAt: now,
        monitorVersion: null,
      }
      row.nextCheckAt = scanned(row) ? now : null
      await commitGuarded(
        ctx.commit(
          [
            failUnless(ctx.db, targetExists(ctx.db, row.targetKind, row.targetId)),
            failUnless(ctx.db, locationNodesExist(locations)),
            ctx.db.insert(probes).values(row),
          ],
          { targetId: id, detail: { name: row.name, type: row.type, targetKind: row.targetKind } },
        ),
        async () => {
          // A node of the locations removed meanwhile is named as such; otherwise the target went.
          await assertLocationNodes(ctx.db, locations)
          return notFound(`${row.targetKind} ${row.targetId}`)
        },
      )
      const live = await configureMonitor(ctx.env, row, ctx.waitUntil)
      return {
        ...toProbeSummary(row, live),
        heartbeatToken: heartbeat?.token ?? null,
        heartbeatUrl: heartbeat ? heartbeatUrl(ctx.origin, heartbeat.token) : null,
      }
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'probe.update',
    summary:
      'Change a probe: config and notifyConfig are laid over the stored ones (a key set to null takes its default) and validated whole; a location replaces the stored one',
    input: UpdateProbeInputSchema,
    output: ProbeSummarySchema,
    errors: ['not_found', 'conflict', 'unprocessable'],
    async handler({ id, webhookSecret, ...fields }, ctx) {
      const row = await getProbeRecord(ctx.db, id)
      assertNotArchived(row)
      const locations =
        fields.location === undefined ? row.locations : parseLocations(row.type, fields.location)
      if (locations.includes(EDGE) && !row.locations.includes(EDGE))
        assertEdgeMayCheck(ctx.env, row.type, row.target)
      const next: ProbeRecord = {
        ...row,
        name: fields.name ?? row.name,
        locations,
        config: fields.config ? parseConfig(row.type, mergePatch(row.config, fields.config)) : row.config,
        notifyConfig: fields.notifyConfig
          ? parseNotifyConfig(ctx.env, mergePatch(row.notifyConfig, fields.notifyConfig))
          : row.notifyConfig,
        enabled: fields.enabled ?? row.enabled,
        webhookSecret:
          webhookSecret === undefined
            ? row.webhookSecret
            : webhookSecret && (await sealSecret(ctx.env, webhookSecret)),
        updatedAt: nextUpdatedAt(row.updatedAt, new Date()),
      }
      assertConfirmationsFit(next.config, next.locations)
      assertSignedWebhook(next.notifyConfig, next.webhookSecret !== null)
      if (fields.notifyConfig) await assertChannelsExist(ctx.db, next.notifyConfig.channels)
      // Where the checks run or how they are made changed: each node must be fit to run them.
      if (fields.location !== undefined || fields.config)
        assertNodesMayCheck(next, await locationNodes(ctx.db, locations))
      const columns = ['name', 'locations', 'config', 'notifyConfig', 'enabled', 'webhookSecret'] as const
      await commitGuarded(
        ctx.commit(
          [failUnless(ctx.db, locationNodesExist(locations)), ...changeTo(ctx.db, row, next, columns)],
          {
            targetId: id,
            detail: {
              fields: Object.keys(fields).filter((key) => fields[key as keyof typeof fields] !== undefined),
              webhookSecret: webhookSecret === undefined ? 'kept' : webhookSecret ? 'replaced' : 'cleared',
            },
          },
        ),
        async () => {
          await assertLocationNodes(ctx.db, locations)
          return lostRace(ctx.db, id)()
        },
      )
      return toProbeSummary(next, await configureMonitor(ctx.env, next, ctx.waitUntil))
    },
  }),
  setEnabled: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'probe.pause',
    summary:
      'Pause a probe (no checks, no alarms, state paused) or resume it; audited probe.pause or probe.resume',
    input: z.strictObject({ id: IdSchema, enabled: z.boolean() }),
    output: z.object({ enabled: z.boolean() }),
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getProbeRecord(ctx.db, input.id)
      assertNotArchived(row)
      const next: ProbeRecord = {
        ...row,
        enabled: input.enabled,
        updatedAt: nextUpdatedAt(row.updatedAt, new Date()),
      }
      await commitGuarded(
        ctx.commit(changeTo(ctx.db, row, next, ['enabled']), {
          action: input.enabled ? 'probe.resume' : 'probe.pause',
          targetId: row.id,
        }),
        lostRace(ctx.db, row.id),
      )
      await configureMonitor(ctx.env, next, ctx.waitUntil)
      return { enabled: next.enabled }
    },
  }),
  archive: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'probe.archive',
    summary:
      'Archive a probe: it stops (state paused, no checks, its heartbeat URL answers 404) and keeps its history and events; archiving again changes nothing',
    input: IdInputSchema,
    output: z.object({ archived: z.literal(true) }),
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getProbeRecord(ctx.db, input.id)
      if (row.archivedAt) {
        await ctx.commit([], { targetId: row.id, detail: { again: true } })
        return { archived: true as const }
      }
      const now = new Date()
      const next: ProbeRecord = {
        ...row,
        archivedAt: now,
        nextCheckAt: null,
        updatedAt: nextUpdatedAt(row.updatedAt, now),
      }
      await commitGuarded(
        ctx.commit(
          guardedUpdate(ctx.db, row, {
            archivedAt: next.archivedAt,
            nextCheckAt: null,
            updatedAt: next.updatedAt,
          }),
          { targetId: row.id, detail: { name: row.name } },
        ),
        lostRace(ctx.db, row.id),
      )
      await configureMonitor(ctx.env, next, ctx.waitUntil)
      return { archived: true as const }
    },
  }),
  rotateToken: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'probe.rotate-token',
    summary:
      "Give a heartbeat probe a new token, shown once; the old token's pings answer 404 from this moment on",
    input: IdInputSchema,
    output: HeartbeatUrlSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getProbeRecord(ctx.db, input.id)
      assertNotArchived(row)
      if (row.type !== 'heartbeat')
        throw conflict(`probe ${row.id} is a ${row.type} probe; only heartbeats have a token`)
      const minted = await mintHeartbeatToken(row.id)
      const next: ProbeRecord = {
        ...row,
        heartbeatTokenHash: minted.hash,
        updatedAt: nextUpdatedAt(row.updatedAt, new Date()),
      }
      await commitGuarded(
        ctx.commit(
          guardedUpdate(ctx.db, row, { heartbeatTokenHash: minted.hash, updatedAt: next.updatedAt }),
          { targetId: row.id },
        ),
        lostRace(ctx.db, row.id),
      )
      await configureMonitor(ctx.env, next, ctx.waitUntil)
      return { heartbeatToken: minted.token, heartbeatUrl: heartbeatUrl(ctx.origin, minted.token) }
    },
  }),
}

import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { BatchItem, Db } from '../db/client'
import {
  maintenanceWindowProbes,
  maintenanceWindowStatusPages,
  maintenanceWindows,
} from '../db/schema/maintenance'
import { probes } from '../db/schema/probes'
import { statusPages } from '../db/schema/status-pages'
import { afterCursor, newestFirst, orderTerms, pageOf, rowsOfPageAndOne } from '../lib/paging'
import { IdInputSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict, invalid, notFound } from '../rpc/errors'
import { endsAtOf, getMaintenance, type MaintenanceWithLinks, toMaintenanceWindow, withLinks } from './rows'
import type { MaintenanceSchedule } from './schedule'
import {
  CreateMaintenanceInputSchema,
  ListMaintenanceInputSchema,
  MaintenanceListSchema,
  MaintenanceWindowSchema,
  UpdateMaintenanceInputSchema,
} from './schemas'
import { reachedProbes, tellMonitors } from './tell-monitors'

/** One-off instants are kept in one form (UTC, milliseconds), whatever offset they came with. */
function normalized(schedule: MaintenanceSchedule): MaintenanceSchedule {
  if (schedule.kind === 'weekly') return schedule
  return {
    kind: 'once',
    startsAt: new Date(schedule.startsAt).toISOString(),
    endsAt: new Date(schedule.endsAt).toISOString(),
  }
}

/** Refuses a one-off window that is already over: it would never cover anything. */
function assertNotOver(schedule: MaintenanceSchedule, now: number): void {
  if (schedule.kind === 'once' && Date.parse(schedule.endsAt) <= now)
    throw invalid('schedule.endsAt', 'is already past')
}

/** Refuses ids naming no probe (or an archived one) and no status page, by their path in the input (400). */
async function assertTargetsExist(db: Db, probeIds: string[], statusPageIds: string[]): Promise<void> {
  if (probeIds.length === 0 && statusPageIds.length === 0)
    throw invalid('probeIds', 'name at least one probe or status page')
  const [foundProbes, foundPages] = await db.batch([
    db
      .select({ id: probes.id })
      .from(probes)
      .where(and(inArray(probes.id, probeIds.length > 0 ? probeIds : ['']), isNull(probes.archivedAt))),
    db
      .select({ id: statusPages.id })
      .from(statusPages)
      .where(inArray(statusPages.id, statusPageIds.length > 0 ? statusPageIds : [''])),
  ])
  const probeSet = new Set(foundProbes.map((row) => row.id))
  probeIds.forEach((id, i) => {
    if (!probeSet.has(id)) throw invalid(`probeIds.${i}`, `names no probe (or an archived one): ${id}`)
  })
  const pageSet = new Set(foundPages.map((row) => row.id))
  statusPageIds.forEach((id, i) => {
    if (!pageSet.has(id)) throw invalid(`statusPageIds.${i}`, `names no status page: ${id}`)
  })
}

/** The link rows of a window, one statement per kind (D1 binds at most 100 values per statement). */
function linkWrites(db: Db, windowId: string, probeIds: string[], statusPageIds: string[]): BatchItem[] {
  const writes: BatchItem[] = []
  for (const [i, probeId] of probeIds.entries())
    writes.push(db.insert(maintenanceWindowProbes).values({ windowId, probeId, position: i }))
  for (const [i, statusPageId] of statusPageIds.entries())
    writes.push(db.insert(maintenanceWindowStatusPages).values({ windowId, statusPageId, position: i }))
  return writes
}

const unique = (ids: string[]) => [...new Set(ids)]

/** A status page removed between the check and the batch fails its foreign key: answered like the check. */
async function commitWithTargets(
  db: Db,
  commit: Promise<unknown>,
  probeIds: string[],
  statusPageIds: string[],
): Promise<void> {
  try {
    await commit
  } catch (error) {
    if (error instanceof Error && /FOREIGN KEY/i.test(`${error.message} ${String(error.cause ?? '')}`)) {
      await assertTargetsExist(db, probeIds, statusPageIds)
    }
    throw error
  }
}

export const maintenanceProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'maintenance.create',
    summary:
      'Create a maintenance window over probes and status pages: one-off, or weekly in a time zone; notifications are withheld while it covers a probe',
    input: CreateMaintenanceInputSchema,
    output: MaintenanceWindowSchema,
    async handler(input, ctx) {
      const now = new Date()
      const schedule = normalized(input.schedule)
      assertNotOver(schedule, now.getTime())
      const probeIds = unique(input.probeIds)
      const statusPageIds = unique(input.statusPageIds)
      await assertTargetsExist(ctx.db, probeIds, statusPageIds)
      const row: MaintenanceWithLinks = {
        id: crypto.randomUUID(),
        title: input.title,
        schedule,
        endsAt: endsAtOf(schedule),
        createdAt: now,
        updatedAt: now,
        probeIds,
        statusPageIds,
      }
      const { probeIds: _, statusPageIds: __, ...record } = row
      await commitWithTargets(
        ctx.db,
        ctx.commit(
          [
            ctx.db.insert(maintenanceWindows).values(record),
            ...linkWrites(ctx.db, row.id, probeIds, statusPageIds),
          ],
          { targetId: row.id, detail: { name: row.title, kind: schedule.kind } },
        ),
        probeIds,
        statusPageIds,
      )
      await tellMonitors(ctx.env, await reachedProbes(ctx.db, probeIds, statusPageIds))
      return toMaintenanceWindow(row, now.getTime())
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'maintenance.update',
    summary: 'Change a maintenance window; the fields given replace the stored ones (the id lists whole)',
    input: UpdateMaintenanceInputSchema,
    output: MaintenanceWindowSchema,
    errors: ['not_found', 'conflict'],
    async handler({ id, ...fields }, ctx) {
      const row = await getMaintenance(ctx.db, id)
      const now = new Date()
      const schedule = fields.schedule ? normalized(fields.schedule) : row.schedule
      if (fields.schedule) assertNotOver(schedule, now.getTime())
      const probeIds = fields.probeIds ? unique(fields.probeIds) : row.probeIds
      const statusPageIds = fields.statusPageIds ? unique(fields.statusPageIds) : row.statusPageIds
      if (fields.probeIds || fields.statusPageIds) await assertTargetsExist(ctx.db, probeIds, statusPageIds)
      const next: MaintenanceWithLinks = {
        ...row,
        title: fields.title ?? row.title,
        schedule,
        endsAt: endsAtOf(schedule),
        updatedAt: nextUpdatedAt(row.updatedAt, now),
        probeIds,
        statusPageIds,
      }
      const before = await reachedProbes(ctx.db, row.probeIds, row.statusPageIds)
      await commitWithTargets(
        ctx.db,
        commitGuarded(
          ctx.commit(
            [
              ctx.db
                .update(maintenanceWindows)
                .set({ title: next.title, schedule, endsAt: next.endsAt, updatedAt: next.updatedAt })
                .where(and(eq(maintenanceWindows.id, id), eq(maintenanceWindows.updatedAt, row.updatedAt))),
              failUnless(ctx.db, sql`changes() = 1`, 'changed meanwhile'),
              ctx.db.delete(maintenanceWindowProbes).where(eq(maintenanceWindowProbes.windowId, id)),
              ctx.db
                .delete(maintenanceWindowStatusPages)
                .where(eq(maintenanceWindowStatusPages.windowId, id)),
              ...linkWrites(ctx.db, id, probeIds, statusPageIds),
            ],
            { targetId: id, detail: { name: next.title, kind: schedule.kind } },
          ),
          async () => {
            const [still] = await ctx.db
              .select({ id: maintenanceWindows.id })
              .from(maintenanceWindows)
              .where(eq(maintenanceWindows.id, id))
            if (!still) return notFound(`maintenance window ${id}`)
            return conflict(`maintenance window ${id} changed meanwhile; read it again and retry`)
          },
        ),
        probeIds,
        statusPageIds,
      )
      const after = await reachedProbes(ctx.db, probeIds, statusPageIds)
      await tellMonitors(ctx.env, unique([...before, ...after]))
      return toMaintenanceWindow(next, now.getTime())
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary:
      'List maintenance windows, newest first; pass nextCursor back as cursor for the next page (null on the last)',
    input: ListMaintenanceInputSchema,
    output: MaintenanceListSchema,
    async handler(input, ctx) {
      const list = {
        table: maintenanceWindows,
        id: maintenanceWindows.id,
        order: newestFirst(maintenanceWindows, maintenanceWindows.createdAt),
      }
      const rows = await ctx.db
        .select()
        .from(maintenanceWindows)
        .where(await afterCursor(ctx.db, list, input.cursor))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPageAndOne(input.limit))
      const page = pageOf(rows, input.limit, (row) => row.id)
      const now = Date.now()
      return {
        windows: (await withLinks(ctx.db, page.items)).map((row) => toMaintenanceWindow(row, now)),
        nextCursor: page.nextCursor,
      }
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary: 'Get a maintenance window',
    input: IdInputSchema,
    output: MaintenanceWindowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toMaintenanceWindow(await getMaintenance(ctx.db, input.id), Date.now())
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'maintenance.remove',
    summary:
      'Remove a maintenance window; what it withheld is settled at once (one notification if the state changed)',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const row = await getMaintenance(ctx.db, input.id)
      const reached = await reachedProbes(ctx.db, row.probeIds, row.statusPageIds)
      await commitGuarded(
        ctx.commit(
          [
            ctx.db.delete(maintenanceWindows).where(eq(maintenanceWindows.id, row.id)),
            failUnless(ctx.db, sql`changes() = 1`, 'gone'),
          ],
          { targetId: row.id, detail: { name: row.title } },
        ),
        () => notFound(`maintenance window ${row.id}`),
      )
      await tellMonitors(ctx.env, reached)
      return { removed: true as const }
    },
  }),
}

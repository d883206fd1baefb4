import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import type { Db } from '../db/client'
import { probes } from '../db/schema/probes'
import { type StatusPageGroup, statusPages } from '../db/schema/status-pages'
import { afterCursor, newestFirst, orderTerms, pageOf, rowsOfPageAndOne } from '../lib/paging'
import { IdInputSchema, RemovedSchema } from '../lib/schemas'
import { procedure } from '../rpc/define'
import { conflict, invalid, notFound } from '../rpc/errors'
import { getStatusPageRecord, type StatusPageRecord, toStatusPage } from './rows'
import {
  CreateStatusPageInputSchema,
  ListStatusPagesInputSchema,
  StatusPageListSchema,
  StatusPageSchema,
  UpdateStatusPageInputSchema,
} from './schemas'

/** Refuses a probe id that names no probe, or an archived one, by its path in the input (400). */
async function assertProbesExist(db: Db, groups: StatusPageGroup[]): Promise<void> {
  const wanted = [...new Set(groups.flatMap((group) => group.probes.map((probe) => probe.probeId)))]
  if (wanted.length === 0) return
  const found = await db
    .select({ id: probes.id })
    .from(probes)
    .where(and(inArray(probes.id, wanted), isNull(probes.archivedAt)))
  const known = new Set(found.map((row) => row.id))
  groups.forEach((group, g) => {
    group.probes.forEach((probe, p) => {
      if (!known.has(probe.probeId))
        throw invalid(
          `groups.${g}.probes.${p}.probeId`,
          `names no probe (or an archived one): ${probe.probeId}`,
        )
    })
  })
}

/** No other page holds the slug: checked in the write's batch, so two pages racing for one slug get one 409. */
const slugFree = (db: Db, slug: string, id: string) =>
  failUnless(
    db,
    sql`not exists (select 1 from ${statusPages} where ${statusPages.slug} = ${slug} and ${statusPages.id} != ${id})`,
    'slug taken',
  )

const slugTaken = (slug: string) => () => conflict(`another status page already has the slug ${slug}`)

export const statusPagesProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'status-page.create',
    summary:
      'Create a status page: groups of probes shown under display names at /status/<slug>, readable by anyone once public',
    input: CreateStatusPageInputSchema,
    output: StatusPageSchema,
    errors: ['conflict'],
    async handler(input, ctx) {
      await assertProbesExist(ctx.db, input.groups)
      const now = new Date()
      const row: StatusPageRecord = {
        id: crypto.randomUUID(),
        slug: input.slug,
        title: input.title,
        description: input.description || null,
        groups: input.groups,
        public: input.public,
        autoIncidents: input.autoIncidents,
        createdAt: now,
        updatedAt: now,
      }
      await commitGuarded(
        ctx.commit([slugFree(ctx.db, row.slug, row.id), ctx.db.insert(statusPages).values(row)], {
          targetId: row.id,
          detail: { slug: row.slug, public: row.public, autoIncidents: row.autoIncidents },
        }),
        slugTaken(row.slug),
      )
      return toStatusPage(row, ctx.origin)
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'status-page.update',
    summary: 'Change a status page; the fields given replace the stored ones (groups whole)',
    input: UpdateStatusPageInputSchema,
    output: StatusPageSchema,
    errors: ['not_found', 'conflict'],
    async handler({ id, ...fields }, ctx) {
      const row = await getStatusPageRecord(ctx.db, id)
      if (fields.groups) await assertProbesExist(ctx.db, fields.groups)
      const next: StatusPageRecord = {
        ...row,
        slug: fields.slug ?? row.slug,
        title: fields.title ?? row.title,
        description: fields.description === undefined ? row.description : fields.description || null,
        groups: fields.groups ?? row.groups,
        public: fields.public ?? row.public,
        autoIncidents: fields.autoIncidents ?? row.autoIncidents,
        updatedAt: nextUpdatedAt(row.updatedAt, new Date()),
      }
      const { id: _, createdAt: __, ...changes } = next
      await commitGuarded(
        ctx.commit(
          [
            slugFree(ctx.db, next.slug, id),
            ctx.db
              .update(statusPages)
              .set(changes)
              .where(and(eq(statusPages.id, id), eq(statusPages.updatedAt, row.updatedAt))),
            failUnless(ctx.db, sql`changes() = 1`, 'changed meanwhile'),
          ],
          {
            targetId: id,
            detail: { slug: next.slug, public: next.public, autoIncidents: next.autoIncidents },
          },
        ),
        async () => {
          const now = await ctx.db
            .select({ id: statusPages.id })
            .from(statusPages)
            .where(eq(statusPages.id, id))
          if (now.length === 0) return notFound(`status page ${id}`)
          const taken = await ctx.db
            .select({ id: statusPages.id })
            .from(statusPages)
            .where(and(eq(statusPages.slug, next.slug), ne(statusPages.id, id)))
          if (taken.length > 0) return slugTaken(next.slug)()
          return conflict(`status page ${id} changed meanwhile; read it again and retry`)
        },
      )
      return toStatusPage(next, ctx.origin)
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary:
      'List status pages, newest first; pass nextCursor back as cursor for the next page (null on the last)',
    input: ListStatusPagesInputSchema,
    output: StatusPageListSchema,
    async handler(input, ctx) {
      const list = {
        table: statusPages,
        id: statusPages.id,
        order: newestFirst(statusPages, statusPages.createdAt),
      }
      const rows = await ctx.db
        .select()
        .from(statusPages)
        .where(await afterCursor(ctx.db, list, input.cursor))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPageAndOne(input.limit))
      const page = pageOf(rows, input.limit, (row) => row.id)
      return {
        statusPages: page.items.map((row) => toStatusPage(row, ctx.origin)),
        nextCursor: page.nextCursor,
      }
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary: 'Get a status page',
    input: IdInputSchema,
    output: StatusPageSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toStatusPage(await getStatusPageRecord(ctx.db, input.id), ctx.origin)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'status-page.remove',
    summary: 'Remove a status page; its public address answers 404 within 30 seconds (the edge cache)',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const row = await getStatusPageRecord(ctx.db, input.id)
      await commitGuarded(
        ctx.commit(
          [
            ctx.db.delete(statusPages).where(eq(statusPages.id, row.id)),
            failUnless(ctx.db, sql`changes() = 1`, 'gone'),
          ],
          { targetId: row.id, detail: { slug: row.slug } },
        ),
        () => notFound(`status page ${row.id}`),
      )
      return { removed: true as const }
    },
  }),
}

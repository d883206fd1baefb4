import { z } from '@hono/zod-openapi'
import { and, eq, sql } from 'drizzle-orm'
import { commitGuarded, failUnless, nextUpdatedAt } from '../db/batch-guard'
import { apiTokens } from '../db/schema/auth'
import { hostnameClaims } from '../db/schema/custom-hostnames'
import { sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { afterCursor, newestFirst, orderTerms, pageInput, rowsOfPage } from '../lib/paging'
import { IdInputSchema, IdSchema, NameSchema, RemovedSchema } from '../lib/schemas'
import { rerenderUpstreams } from '../routes/upstreams'
import { enqueueReconcile } from '../routes/versions'
import { procedure } from '../rpc/define'
import { conflict } from '../rpc/errors'
import { getInstance, getSite, type SiteRecord, toSiteRow } from './rows'
import { SiteRowSchema } from './schemas'

const PortSchema = z.number().int().min(1).max(65535)

// How many of a site's hostnames a refused removal names.
const MAX_NAMED = 10

export const sitesProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'site.create',
    summary: 'Create a site on an instance',
    input: z.strictObject({
      instanceId: IdSchema,
      name: NameSchema,
      port: PortSchema.optional(),
    }),
    output: SiteRowSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const instance = await getInstance(ctx.db, input.instanceId)
      const now = new Date()
      const site: SiteRecord = {
        id: crypto.randomUUID(),
        instanceId: instance.id,
        name: input.name,
        port: input.port ?? null,
        createdAt: now,
        updatedAt: now,
      }
      await ctx.commit([ctx.db.insert(sites).values(site)], {
        targetId: site.id,
        detail: { name: site.name },
      })
      return toSiteRow(site)
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'fleet:view',
    summary:
      'List sites, newest first, optionally of one instance; page with limit and cursor (the id of the last row you hold)',
    input: z.strictObject({ instanceId: IdSchema.optional(), ...pageInput }),
    output: z.array(SiteRowSchema),
    async handler(input, ctx) {
      const scope = input.instanceId ? eq(sites.instanceId, input.instanceId) : undefined
      const list = { table: sites, id: sites.id, order: newestFirst(sites, sites.createdAt), scope }
      const rows = await ctx.db
        .select()
        .from(sites)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return rows.map(toSiteRow)
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'fleet:view',
    summary: 'Get a site',
    input: IdInputSchema,
    output: SiteRowSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      return toSiteRow(await getSite(ctx.db, input.id))
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'site.update',
    summary:
      "Change a site's name or port (null: 80); a new port re-renders the site's http routes and pushes its node",
    input: z.strictObject({
      id: IdSchema,
      name: NameSchema.optional(),
      port: PortSchema.nullable().optional(),
    }),
    output: SiteRowSchema,
    errors: ['not_found', 'conflict'],
    async handler({ id, ...fields }, ctx) {
      const site = await getSite(ctx.db, id)
      const moved = fields.port !== undefined && fields.port !== site.port
      const next: SiteRecord = {
        ...site,
        ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
        updatedAt: nextUpdatedAt(site.updatedAt, new Date()),
      }
      const { nodeId } = await getInstance(ctx.db, site.instanceId)
      await commitGuarded(
        ctx.commit(
          [
            ctx.db
              .update(sites)
              .set({ name: next.name, port: next.port, updatedAt: next.updatedAt })
              .where(and(eq(sites.id, id), eq(sites.updatedAt, site.updatedAt))),
            failUnless(ctx.db, sql`changes() = 1`),
            ...(moved
              ? rerenderUpstreams(
                  ctx.db,
                  nodeId,
                  sql`${routes.siteId} = ${id} and ${routes.kind} = 'http'`,
                  next.updatedAt,
                )
              : []),
          ],
          { targetId: id, detail: { fields: Object.keys(fields) } },
        ),
        async () => {
          await getSite(ctx.db, id)
          return conflict(`site ${site.name} changed while this update ran; read it again and retry`)
        },
      )
      if (moved) await enqueueReconcile(ctx.env, nodeId)
      return toSiteRow(next)
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'fleet:manage',
    audit: 'site.remove',
    summary: 'Remove a site (409 while it holds custom hostnames); its site tokens go with it',
    input: IdInputSchema,
    output: RemovedSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const site = await getSite(ctx.db, input.id)
      const held = await ctx.db
        .select({ hostname: hostnameClaims.hostname })
        .from(hostnameClaims)
        .where(eq(hostnameClaims.siteId, site.id))
        .limit(MAX_NAMED)
      if (held.length > 0)
        throw conflict(
          `the site still holds ${held.map((h) => h.hostname).join(', ')}${held.length === MAX_NAMED ? ', …' : ''}: remove them first`,
        )
      // A claim made meanwhile makes the delete fail on its foreign key: 409 as well.
      await ctx.commit(
        [
          ctx.db.delete(apiTokens).where(eq(apiTokens.siteId, site.id)),
          ctx.db.delete(sites).where(eq(sites.id, site.id)),
        ],
        { targetId: site.id, detail: { name: site.name } },
      )
      return { removed: true as const }
    },
  }),
}

import { z } from '@hono/zod-openapi'
import { and, eq, sql } from 'drizzle-orm'
import { domains } from '../db/schema/domains'
import { sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { getInstance, getSite } from '../fleet/rows'
import {
  afterCursor,
  contains,
  newestFirst,
  orderTerms,
  pageInput,
  rowsOfPage,
  SearchSchema,
} from '../lib/paging'
import { IdInputSchema, IdSchema } from '../lib/schemas'
import { archiveDomainCertProbes, configureDomainCertProbes } from '../probes/domain-cert/probe'
import { procedure } from '../rpc/define'
import { notFound } from '../rpc/errors'
import { createRaw } from './create-raw'
import { removeRoute } from './http-route'
import { getRoute, toRouteRow } from './rows'
import { CreateRawInputSchema, ReconcileEnqueuedSchema, RouteRemovedSchema, RouteRowSchema } from './schemas'
import { bumpVersion, desiredVersion, enqueueReconcile } from './versions'

const order = newestFirst(routes, routes.createdAt)

export const routesProcedures = {
  listForSite: procedure({
    kind: 'query',
    trustedOutput: true,
    permission: 'domains:view',
    summary:
      "List a site's routes, newest first, optionally only those whose hostname contains a search text; page with limit and cursor (the id of the last route you hold)",
    input: z.strictObject({
      siteId: IdSchema,
      search: SearchSchema.optional().describe(
        'Only routes whose hostname contains this text (case-insensitive)',
      ),
      ...pageInput,
    }),
    output: z.array(RouteRowSchema),
    errors: ['not_found'],
    handler: (input, ctx) =>
      ctx.replicaCopy(`routes.listForSite ${JSON.stringify(input)}`, async () => {
        // A later page checks the site before its cursor, so an unknown site stays 404 rather than a 400 cursor.
        if (input.cursor !== undefined) await getSite(ctx.db, input.siteId)
        const scope = eq(routes.siteId, input.siteId)
        const after = await afterCursor(ctx.db, { table: routes, id: routes.id, order, scope }, input.cursor)
        // The site and its page in one statement: no row at all is no such site, one without a route an empty page.
        const rows = await ctx.db
          .select({ route: routes })
          .from(sites)
          .leftJoin(
            routes,
            and(
              eq(routes.siteId, sites.id),
              after,
              input.search ? contains(routes.hostname, input.search) : undefined,
            ),
          )
          .where(eq(sites.id, input.siteId))
          .orderBy(...orderTerms(order))
          .limit(rowsOfPage(input.limit))
        if (rows.length === 0) throw notFound(`site ${input.siteId}`)
        return rows.flatMap(({ route }) => (route ? [toRouteRow(route)] : []))
      }),
  }),
  listForInstance: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary:
      'List every route targeting an instance, newest first; page with limit and cursor (the id of the last route you hold)',
    input: z.strictObject({ instanceId: IdSchema, ...pageInput }),
    output: z.array(RouteRowSchema),
    errors: ['not_found'],
    async handler(input, ctx) {
      await getInstance(ctx.db, input.instanceId)
      const scope = eq(routes.instanceId, input.instanceId)
      const after = await afterCursor(ctx.db, { table: routes, id: routes.id, order, scope }, input.cursor)
      const rows = await ctx.db
        .select()
        .from(routes)
        .where(and(scope, after))
        .orderBy(...orderTerms(order))
        .limit(rowsOfPage(input.limit))
      return rows.map(toRouteRow)
    },
  }),
  createRaw: procedure({
    kind: 'mutation',
    permission: 'routes:manage',
    audit: 'route.open-raw',
    summary: "Open a raw TCP/UDP port on the instance's node, forwarded to the instance (a proxy device)",
    input: CreateRawInputSchema,
    output: RouteRowSchema.extend({ reconcileEnqueued: z.literal(true) }),
    errors: ['not_found', 'conflict'],
    handler: createRaw,
  }),
  reconcile: procedure({
    kind: 'mutation',
    permission: 'routes:manage',
    audit: 'route.reconcile',
    summary: "Push the route's node its whole edge configuration again, at a new version",
    input: IdInputSchema,
    output: ReconcileEnqueuedSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const route = await getRoute(ctx.db, input.id)
      const now = new Date()
      await ctx.commit(
        [
          // An operator's push again: the whole state, so the node retries every entry.
          ...bumpVersion(ctx.db, route.nodeId, now, 'everything'),
          ctx.db
            .update(routes)
            .set({
              status: sql`case when ${routes.status} = 'removed' then 'removed' else 'pending' end`,
              configVersion: desiredVersion(route.nodeId),
              updatedAt: now,
            })
            .where(eq(routes.id, route.id)),
        ],
        { targetId: route.id, detail: { nodeId: route.nodeId } },
      )
      await enqueueReconcile(ctx.env, route.nodeId)
      return { reconcileEnqueued: true as const, nodeId: route.nodeId }
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'routes:manage',
    audit: 'route.remove',
    summary:
      'Remove a route: off the node at its next version, then the row is deleted; a domain it served turns failed',
    input: IdInputSchema,
    output: RouteRemovedSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const removal = await removeRoute(ctx.db, input.id)
      const now = new Date()
      // A domain is green only while its route serves it: it says so instead of staying green (and its chain stops).
      const orphaned = ctx.db
        .update(domains)
        .set({
          certState: 'failed',
          step: 'failed',
          routeId: null,
          failureRemedy:
            'The route that served this domain was removed (routes.remove). Attach the domain again to serve it.',
          generation: sql`${domains.generation} + 1`,
          updatedAt: now,
        })
        .where(eq(domains.routeId, input.id))
      // Only a domain's own attach creates its route, so the domain served by it is known before the commit.
      const served = await ctx.db
        .select({ id: domains.id })
        .from(domains)
        .where(eq(domains.routeId, input.id))
      await ctx.commit(
        [...removal.writes, orphaned, ...served.map((d) => archiveDomainCertProbes(ctx.db, d.id, now))],
        { targetId: input.id, detail: { nodeId: removal.nodeId } },
      )
      for (const domain of served) await configureDomainCertProbes(ctx.env, ctx.db, domain.id)
      await enqueueReconcile(ctx.env, removal.nodeId)
      return { removed: true, reconcileEnqueued: true as const }
    },
  }),
}

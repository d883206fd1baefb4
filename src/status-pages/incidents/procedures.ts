import { and, eq, sql } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../../db/batch-guard'
import { statusPageIncidents, statusPageIncidentUpdates, statusPages } from '../../db/schema/status-pages'
import { afterCursor, newestFirst, orderTerms, pageOf, rowsOfPageAndOne } from '../../lib/paging'
import { procedure } from '../../rpc/define'
import { conflict, invalidReference, notFound } from '../../rpc/errors'
import { getStatusPageRecord } from '../rows'
import {
  CreateIncidentInputSchema,
  IncidentListSchema,
  ListIncidentsInputSchema,
  UpdateIncidentInputSchema,
} from './inputs'
import { toIncident } from './read'
import { IncidentSchema } from './schema'
import { openIncident, postIncidentUpdate, readIncident } from './write'

/** The probes a page lists, by id. */
const listedOn = (groups: { probes: { probeId: string }[] }[]) =>
  new Set(groups.flatMap((group) => group.probes.map((probe) => probe.probeId)))

export const incidentsProcedures = {
  create: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'status-page.incident-create',
    summary:
      'Open an incident on a status page: its title, impact, the listed probes it concerns and a first update (`investigating`)',
    input: CreateIncidentInputSchema,
    output: IncidentSchema,
    errors: ['not_found', 'invalid_reference'],
    async handler(input, ctx) {
      const page = await getStatusPageRecord(ctx.db, input.statusPageId)
      const listed = listedOn(page.groups)
      input.probeIds.forEach((probeId, i) => {
        if (!listed.has(probeId))
          throw invalidReference(`probeIds.${i}`, `is not listed on status page ${page.slug}: ${probeId}`)
      })
      return openIncident(
        ctx.db,
        ctx.env,
        (writes, incident) =>
          commitGuarded(
            ctx.commit(
              [
                failUnless(
                  ctx.db,
                  sql`exists (select 1 from ${statusPages} where ${statusPages.id} = ${page.id})`,
                  'page gone',
                ),
                ...writes,
              ],
              {
                targetId: incident.id,
                detail: { statusPageId: page.id, name: incident.title, impact: incident.impact },
              },
            ),
            () => notFound(`status page ${page.id}`),
          ),
        {
          statusPageId: page.id,
          title: input.title,
          impact: input.impact,
          probeIds: [...new Set(input.probeIds)],
          automatic: false,
          message: input.message,
          at: new Date(),
        },
      )
    },
  }),
  update: procedure({
    kind: 'mutation',
    permission: 'probes:manage',
    audit: 'status-page.incident-update',
    summary:
      'Add a timestamped update to an incident; its state becomes the incident’s (`resolved` sets resolvedAt, any other reopens a resolved one)',
    input: UpdateIncidentInputSchema,
    output: IncidentSchema,
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const read = await readIncident(ctx.db, input.id)
      if (!read) throw notFound(`incident ${input.id}`)
      return postIncidentUpdate(
        ctx.db,
        ctx.env,
        (writes, incident) =>
          commitGuarded(
            ctx.commit(writes, {
              targetId: incident.id,
              detail: { statusPageId: incident.statusPageId, name: incident.title, state: incident.state },
            }),
            async () =>
              (await readIncident(ctx.db, input.id))
                ? conflict(`incident ${input.id} changed meanwhile; read it again and retry`)
                : notFound(`incident ${input.id}`),
          ),
        read,
        { state: input.state, message: input.message, now: new Date() },
      )
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'probes:manage',
    summary:
      'List a status page’s incidents, newest first, each with every update; pass nextCursor back as cursor for the next page',
    input: ListIncidentsInputSchema,
    output: IncidentListSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      await getStatusPageRecord(ctx.db, input.statusPageId)
      const list = {
        table: statusPageIncidents,
        id: statusPageIncidents.id,
        order: newestFirst(statusPageIncidents, statusPageIncidents.createdAt),
        scope: eq(statusPageIncidents.statusPageId, input.statusPageId),
      }
      const rows = await ctx.db
        .select()
        .from(statusPageIncidents)
        .where(and(list.scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPageAndOne(input.limit))
      const page = pageOf(rows, input.limit, (row) => row.id)
      const ids = JSON.stringify(page.items.map((row) => row.id))
      // The ids travel as one JSON parameter: a page of any size stays within D1's bound-parameter limit.
      const updates =
        page.items.length === 0
          ? []
          : await ctx.db
              .select()
              .from(statusPageIncidentUpdates)
              .where(sql`${statusPageIncidentUpdates.incidentId} in (select value from json_each(${ids}))`)
      return { incidents: page.items.map((row) => toIncident(row, updates)), nextCursor: page.nextCursor }
    },
  }),
}

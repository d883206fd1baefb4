import { z } from '@hono/zod-openapi'
import { and, eq, isNull, or } from 'drizzle-orm'
import { probeDeliveries, probes } from '../db/schema/probes'
import { afterCursor, contains, newestFirst, orderTerms, rowsOfPage } from '../lib/paging'
import { IdInputSchema } from '../lib/schemas'
import { notifyUrlFor } from '../notifications/probes/url-for'
import { procedure } from '../rpc/define'
import { HISTORY_ISOLATE_TTL_MS, HistoryOutputSchema, renderedHistory } from './history/cache'
import { readEvents } from './history/read'
import { getProbeRecord, toDelivery, toProbeSummary } from './rows'
import { HistoryInputSchema, ListProbesInputSchema, ProbeDetailSchema, ProbeSummarySchema } from './schemas'

export const readProbesProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary:
      "List probes, newest first, optionally of one target or matching a search; archived ones only with includeArchived. `state` and `lastChangedAt` are current; `lastCheckedAt`, `lastResult` and `consecutiveFailures` are as of the monitor's last write to the catalogue (on each state change, else once an hour: up to two hours behind; `probes.get` reads them live). Page with limit and cursor (the id of the last probe you hold); a page shorter than limit is the last",
    input: ListProbesInputSchema,
    output: z.array(ProbeSummarySchema),
    async handler(input, ctx) {
      const scope = and(
        input.targetKind ? eq(probes.targetKind, input.targetKind) : undefined,
        input.targetId ? eq(probes.targetId, input.targetId) : undefined,
        input.includeArchived ? undefined : isNull(probes.archivedAt),
        input.search
          ? or(contains(probes.name, input.search), contains(probes.target, input.search))
          : undefined,
      )
      const list = { table: probes, id: probes.id, order: newestFirst(probes, probes.createdAt), scope }
      const rows = await ctx.db
        .select()
        .from(probes)
        .where(and(scope, await afterCursor(ctx.db, list, input.cursor)))
        .orderBy(...orderTerms(list.order))
        .limit(rowsOfPage(input.limit))
      return rows.map((row) => notifyUrlFor(ctx.principal, toProbeSummary(row)))
    },
  }),
  get: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary:
      "Get a probe with its live state, its latest 100 events (newest first), the last delivery per notification target and a heartbeat's last ping",
    input: IdInputSchema,
    output: ProbeDetailSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      // All four at once, one round trip: an id that is no probe costs a look at an empty monitor, which stores
      // nothing, and answers 404 all the same.
      const [row, events, deliveries, live] = await Promise.all([
        getProbeRecord(ctx.db, input.id),
        readEvents(ctx.d1, input.id),
        ctx.db.select().from(probeDeliveries).where(eq(probeDeliveries.probeId, input.id)),
        ctx.env.PROBE_MONITOR.getByName(input.id).live(),
      ])
      return {
        ...notifyUrlFor(ctx.principal, toProbeSummary(row, live)),
        events,
        deliveries: deliveries.map(toDelivery),
        lastPing: live?.lastPing ?? null,
      }
    },
  }),
  history: procedure({
    kind: 'query',
    permission: 'probes:view',
    summary: `A probe's history over the last \`hours\`, oldest first, up to now: hourly or daily rollups (one row per bucket that had checks; a closed bucket's exact p50/p95/p99 latencies), or raw results (the latest 1000; with \`location\`, what that location measured). An answer may be up to ${HISTORY_ISOLATE_TTL_MS / 1000} s older than the results`,
    input: HistoryInputSchema,
    output: HistoryOutputSchema,
    errors: ['not_found'],
    handler: (input, ctx) => renderedHistory(ctx.d1, ctx.env.PROBE_MONITOR.getByName(input.id), input),
  }),
}

import { z } from '@hono/zod-openapi'
import { getSite } from '../fleet/rows'
import { NextCursorSchema, pageInput, pageOf, SearchSchema } from '../lib/paging'
import { procedure } from '../rpc/define'
import { AppError, notFound } from '../rpc/errors'
import { planFor, planFromFacts, toPlanFacts } from './facts'
import { withRecordsAtName } from './probe-records'
import { spendHostnameCall } from './rate-limits'
import { collision, registerAgain, registerNew } from './register'
import { registerReads } from './register-reads'
import { removeCustomHostname } from './remove'
import { getCustomHostname, listCustomHostnames, toStatus } from './rows'
import {
  ListRowSchema,
  ProbeResponseSchema,
  RegisterResponseSchema,
  RemoveResponseSchema,
  SiteHostnameInputSchema,
  SiteInputSchema,
  StatusResponseSchema,
} from './schemas'
import { settingsProcedures } from './settings'
import { withFreshDnsCheck } from './status'

/**
 * The machine seam a SaaS app calls with its site token; users and `pat_` tokens may call it for any site. Each
 * call spends its rate window beside its first read (one round trip less); nothing is written before both end.
 * register reads everything it decides from beside the caller's authentication (its prefetch), so it waits on
 * that read, its rate window, and its one batch.
 */
export const customHostnamesProcedures = {
  probe: procedure({
    kind: 'query',
    trustedOutput: true,
    permission: 'custom-hostnames:view',
    siteScoped: true,
    summary: 'Plan a hostname without writing anything: verdict, tier, zone and the exact records',
    input: SiteHostnameInputSchema,
    output: ProbeResponseSchema,
    errors: ['not_found', 'rate_limited'],
    async handler(input, ctx) {
      const [planned] = await Promise.all([
        planFor(ctx.db, ctx.env, input.siteId, input.hostname),
        spendHostnameCall(ctx.env, ctx.principal, 'probe'),
      ])
      const plan = await withRecordsAtName(ctx.db, ctx.env, input.hostname, planned)
      return {
        hostname: input.hostname,
        verdict: plan.verdict,
        reason: plan.reason,
        tier: plan.tier,
        zoneName: plan.zoneName,
        records: plan.records,
        cnameTarget: plan.cnameTarget,
        registered: plan.registered,
      }
    },
  }),
  register: procedure({
    kind: 'mutation',
    permission: 'custom-hostnames:manage',
    siteScoped: true,
    audit: 'custom-hostname.register',
    summary:
      'Register a hostname: write its records when the zone is controlled and allow-listed, else hand them out',
    input: SiteHostnameInputSchema,
    output: RegisterResponseSchema,
    errors: ['not_found', 'collision', 'conflict', 'site_has_no_target', 'limit_reached', 'rate_limited'],
    prefetch: registerReads,
    async handler(input, ctx, reads) {
      await spendHostnameCall(ctx.env, ctx.principal, 'register')
      const facts = toPlanFacts(reads.facts, input.siteId, input.hostname)
      const plan = await planFromFacts(ctx.env, facts, async () => reads.issuer)
      if (plan.reason === 'collision') throw collision(input.hostname)
      if (plan.missingTarget) throw new AppError('site_has_no_target', plan.missingTarget)
      if (!plan.registered) return registerNew(ctx, input, plan, reads)
      if (!reads.row) throw notFound(`custom hostname ${input.hostname} on site ${input.siteId}`)
      return registerAgain(ctx, reads.row, plan, reads)
    },
  }),
  status: procedure({
    kind: 'query',
    trustedOutput: true,
    permission: 'custom-hostnames:view',
    siteScoped: true,
    summary: "A hostname's state, plan, advisory DNS check and certificate",
    input: SiteHostnameInputSchema,
    output: StatusResponseSchema,
    errors: ['not_found', 'rate_limited'],
    async handler(input, ctx) {
      const [{ row, observation }] = await Promise.all([
        getCustomHostname(ctx.db, input.siteId, input.hostname),
        spendHostnameCall(ctx.env, ctx.principal, 'status'),
      ])
      return toStatus(
        await withFreshDnsCheck(ctx.db, ctx.env, row, ctx.waitUntil),
        observation,
        ctx.principal.kind !== 'site-token',
      )
    },
  }),
  list: procedure({
    kind: 'query',
    permission: 'custom-hostnames:view',
    siteScoped: true,
    summary:
      "A site's hostnames with their status, newest first, optionally only those containing a search text; pass nextCursor back as cursor for the next page",
    input: SiteInputSchema.extend({
      search: SearchSchema.optional().describe('Only hostnames containing this text (case-insensitive)'),
      ...pageInput,
    }),
    output: z.object({ hostnames: z.array(ListRowSchema), nextCursor: NextCursorSchema }),
    errors: ['not_found', 'rate_limited'],
    async handler(input, ctx) {
      await spendHostnameCall(ctx.env, ctx.principal, 'status')
      await getSite(ctx.db, input.siteId)
      const rows = await listCustomHostnames(ctx.db, input, ctx.principal.kind !== 'site-token')
      const page = pageOf(rows, input.limit, (row) => row.id)
      return { hostnames: page.items, nextCursor: page.nextCursor }
    },
  }),
  remove: procedure({
    kind: 'mutation',
    permission: 'custom-hostnames:manage',
    siteScoped: true,
    audit: 'custom-hostname.remove',
    summary: 'Remove a hostname, deleting only the records the panel created',
    input: SiteHostnameInputSchema,
    output: RemoveResponseSchema,
    errors: ['not_found', 'conflict', 'rate_limited'],
    async handler(input, ctx) {
      await spendHostnameCall(ctx.env, ctx.principal, 'remove')
      const { row } = await getCustomHostname(ctx.db, input.siteId, input.hostname)
      return removeCustomHostname(ctx, row)
    },
  }),
  settings: settingsProcedures,
}

import { z } from '@hono/zod-openapi'
import { updateReplicaCopy } from '../db/replica-copy'
import { getSite } from '../fleet/rows'
import { NextCursorSchema, pageInput, pageOf, SearchSchema } from '../lib/paging'
import { type ProcedureContext, procedure } from '../rpc/define'
import { notFound } from '../rpc/errors'
import { checkCustomHostname } from './check'
import { loadPlanFacts, planFromFacts, toPlanFacts } from './facts'
import { spendHostnameCall } from './rate-limits'
import { recordsInTheWayOf, withRecordsInTheWay } from './records-in-the-way'
import { collision, registerAgain, registerNew } from './register'
import { registerReads } from './register-reads'
import { removeCustomHostname } from './remove'
import { issuerFor } from './route'
import { getCustomHostname, listCustomHostnames, toStatus } from './rows'
import {
  ListRowSchema,
  ProbeResponseSchema,
  RegisterInputSchema,
  RegisterResponseSchema,
  RemoveResponseSchema,
  SiteHostnameInputSchema,
  SiteInputSchema,
  StatusResponseSchema,
} from './schemas'
import { settingsProcedures } from './settings'
import { withFreshDnsCheck } from './status'

/** Probe's plan, its facts read from this isolate's copy when it has one (`ProcedureContext.replicaCopy`). */
function planFromCopy(ctx: ProcedureContext, siteId: string, hostname: string) {
  const facts = ctx.replicaCopy(`plan-facts ${siteId} ${hostname}`, () =>
    loadPlanFacts(ctx.db, siteId, hostname),
  )
  return facts.then((read) => planFromFacts(ctx.env, read, () => issuerFor(ctx.db, siteId)))
}

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
        planFromCopy(ctx, input.siteId, input.hostname),
        spendHostnameCall(ctx.env, ctx.principal, 'probe', ctx.waitUntil),
      ])
      const inTheWay = await recordsInTheWayOf(ctx.db, ctx.env, input.hostname, planned)
      const plan = withRecordsInTheWay(planned, inTheWay)
      return {
        hostname: input.hostname,
        verdict: plan.verdict,
        reason: plan.reason,
        tier: plan.tier,
        zoneName: plan.zoneName,
        records: plan.records,
        cnameTarget: plan.cnameTarget,
        registered: plan.registered,
        ...(inTheWay.length > 0 ? { inTheWay } : {}),
      }
    },
  }),
  register: procedure({
    kind: 'mutation',
    permission: 'custom-hostnames:manage',
    siteScoped: true,
    audit: 'custom-hostname.register',
    summary:
      'Register a hostname: write its records when the zone is controlled and allow-listed, else hand them out; keep the app’s metadata on it',
    input: RegisterInputSchema,
    output: RegisterResponseSchema,
    errors: ['not_found', 'collision', 'conflict', 'limit_reached', 'rate_limited'],
    prefetch: registerReads,
    async handler(input, ctx, reads) {
      await spendHostnameCall(ctx.env, ctx.principal, 'register', ctx.waitUntil)
      const facts = toPlanFacts(reads.facts, input.siteId, input.hostname)
      const planned = await planFromFacts(ctx.env, facts, async () => reads.issuer)
      if (planned.reason === 'collision') throw collision(input.hostname)
      if (planned.registered && !reads.row)
        throw notFound(`custom hostname ${input.hostname} on site ${input.siteId}`)
      // A live row answers as it is; any other register writes only when nothing stands in the way.
      const live = reads.row?.state === 'active' || reads.row?.state === 'pending'
      const inTheWay = live ? [] : await recordsInTheWayOf(ctx.db, ctx.env, input.hostname, planned)
      const plan = withRecordsInTheWay(planned, inTheWay)
      const registration = reads.row
        ? await registerAgain(ctx, reads.row, plan, reads, input.metadata)
        : await registerNew(ctx, input, plan, reads)
      return inTheWay.length > 0 ? { ...registration, inTheWay } : registration
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
      const key = `custom-hostname ${input.siteId} ${input.hostname}`
      const [{ row, observation, attempt }] = await Promise.all([
        ctx.replicaCopy(key, () => getCustomHostname(ctx.db, input.siteId, input.hostname)),
        spendHostnameCall(ctx.env, ctx.principal, 'status', ctx.waitUntil),
      ])
      const checked = await withFreshDnsCheck(ctx.db, ctx.env, row, ctx.waitUntil)
      // The copy keeps the check, so the next status within the copy's life does not look the records up again.
      if (checked.dnsCheckedAt !== row.dnsCheckedAt)
        updateReplicaCopy(key, { row: checked, observation, attempt })
      return {
        ...toStatus(checked, observation, attempt, ctx.principal.kind !== 'site-token'),
        diagnosis: checked.dnsDiagnosis,
      }
    },
  }),
  check: procedure({
    kind: 'mutation',
    permission: 'custom-hostnames:view',
    siteScoped: true,
    audit: 'custom-hostname.check',
    summary:
      "Read the hostname's DNS now, bypassing the 30 s reuse, and answer its status; when the records are now right and no certificate is served yet, the node is asked to try issuance again. Counted in the status window",
    input: SiteHostnameInputSchema,
    output: StatusResponseSchema,
    errors: ['not_found', 'rate_limited'],
    handler: checkCustomHostname,
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
      await spendHostnameCall(ctx.env, ctx.principal, 'status', ctx.waitUntil)
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
      await spendHostnameCall(ctx.env, ctx.principal, 'remove', ctx.waitUntil)
      const { row } = await getCustomHostname(ctx.db, input.siteId, input.hostname)
      return removeCustomHostname(ctx, row)
    },
  }),
  settings: settingsProcedures,
}

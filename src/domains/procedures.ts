import { z } from '@hono/zod-openapi'
import { and, eq } from 'drizzle-orm'
import { commitGuarded, failUnless } from '../db/batch-guard'
import { updateReplicaCopy } from '../db/replica-copy'
import { domains } from '../db/schema/domains'
import { instances, nodes, sites } from '../db/schema/fleet'
import { routes } from '../db/schema/routes'
import { diagnose, resolvesAsPlanned } from '../diagnosis/diagnose'
import { primeAgain } from '../diagnosis/prime-again'
import {
  afterCursor,
  contains,
  newestFirst,
  orderTerms,
  pageInput,
  pageOf,
  rowsOfPageAndOne,
  SearchSchema,
} from '../lib/paging'
import { IdInputSchema, IdSchema } from '../lib/schemas'
import { archiveDomainCertProbes, configureDomainCertProbes } from '../probes/domain-cert/probe'
import { enqueueReconcile } from '../routes/http-route'
import { procedure } from '../rpc/define'
import { conflict, notFound } from '../rpc/errors'
import { attachNew, attachReads } from './attach'
import { enqueueDomainStep, entry, routeRemoval, STEP_LABELS } from './chain'
import { domainTarget, freshDomainDiagnosis, storeDomainDiagnosis } from './diagnosis'
import { listDrivers, testCredentials } from './drivers'
import { agentForSite } from './edge-steps'
import { certOf, nodeReports } from './node-reports'
import {
  type DomainRecord,
  getDomainRecord,
  nextStepOf,
  stillGeneration,
  targetOf,
  toDomainRow,
} from './rows'
import {
  AttachInputSchema,
  DomainListSchema,
  DomainWithNextStepSchema,
  DriversSchema,
  TestCredentialsInputSchema,
} from './schemas'
import { followServedCertificate } from './served-certificate'

const changedMeanwhile = (row: DomainRecord) => () => conflict(`${row.hostname} changed meanwhile; try again`)

export const domainsProcedures = {
  list: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary:
      "List a site's domains, newest first, optionally only those whose hostname contains a search text, with the DNS target of the site's node; pass nextCursor back as cursor for the next page",
    input: z.strictObject({
      siteId: IdSchema,
      search: SearchSchema.optional().describe(
        'Only domains whose hostname contains this text (case-insensitive)',
      ),
      ...pageInput,
    }),
    output: DomainListSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const scope = and(
        eq(domains.siteId, input.siteId),
        input.search ? contains(domains.hostname, input.search) : undefined,
      )
      const list = { table: domains, id: domains.id, order: newestFirst(domains, domains.createdAt), scope }
      const after = await afterCursor(ctx.db, list, input.cursor)
      const [chain, rows] = await ctx.db.batch([
        ctx.db
          .select({ dnsTarget: nodes.dnsTarget, publicIpv4: nodes.publicIpv4, publicIpv6: nodes.publicIpv6 })
          .from(sites)
          .leftJoin(instances, eq(instances.id, sites.instanceId))
          .leftJoin(nodes, eq(nodes.id, instances.nodeId))
          .where(eq(sites.id, input.siteId)),
        ctx.db
          .select()
          .from(domains)
          .where(and(scope, after))
          .orderBy(...orderTerms(list.order))
          .limit(rowsOfPageAndOne(input.limit)),
      ])
      const [node] = chain
      if (!node) throw notFound(`site ${input.siteId}`)
      const page = pageOf(rows, input.limit, (row) => row.id)
      return { domains: page.items.map(toDomainRow), nextCursor: page.nextCursor, target: targetOf(node) }
    },
  }),
  get: procedure({
    kind: 'query',
    trustedOutput: true,
    permission: 'domains:view',
    summary: 'Get a domain with its next step (a backups prompt once it is green)',
    input: IdInputSchema,
    output: DomainWithNextStepSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const key = `domain ${input.id}`
      const { row, reports } = await ctx.replicaCopy(key, async () => {
        const [found, reports] = await Promise.all([
          getDomainRecord(ctx.db, input.id),
          nodeReports(ctx.db, input.id),
        ])
        return { row: found, reports }
      })
      const diagnosis = await freshDomainDiagnosis(ctx.db, ctx.env, row, ctx.waitUntil)
      // The copy keeps the diagnosis, so the next get within the copy's life does not read DNS again.
      if (diagnosis !== row.diagnosis) updateReplicaCopy(key, { row: { ...row, diagnosis }, reports })
      return { ...toDomainRow(row), nextStep: nextStepOf(row), cert: certOf(reports), diagnosis }
    },
  }),
  check: procedure({
    kind: 'mutation',
    permission: 'domains:view',
    audit: 'domain.check',
    summary:
      "Read the domain's DNS now, bypassing the 30 s reuse, and answer it with the new diagnosis; when the records are now right and no certificate is served yet, the node is asked to try issuance again",
    input: IdInputSchema,
    output: DomainWithNextStepSchema,
    errors: ['not_found'],
    async handler(input, ctx) {
      const [row, reports] = await Promise.all([
        getDomainRecord(ctx.db, input.id),
        nodeReports(ctx.db, input.id),
      ])
      const diagnosis = await diagnose(ctx.db, ctx.env, await domainTarget(ctx.db, row))
      const resolves = resolvesAsPlanned(diagnosis)
      await ctx.commit([storeDomainDiagnosis(ctx.db, row, diagnosis)], {
        targetId: row.id,
        detail: { hostname: row.hostname, resolves },
      })
      if (resolves && row.routeId && row.certState !== 'issued' && row.certState !== 'renewing')
        ctx.waitUntil(
          primeAgain(ctx.env, ctx.db, row, (observed) => [followServedCertificate(ctx.db, row.id, observed)]),
        )
      return { ...toDomainRow(row), nextStep: nextStepOf(row), cert: certOf(reports), diagnosis }
    },
  }),
  drivers: procedure({
    kind: 'query',
    permission: 'domains:view',
    summary: 'The DNS drivers a domain can be attached with, and the certificate issuers',
    input: z.strictObject({}),
    output: DriversSchema,
    async handler(_input, ctx) {
      return listDrivers(ctx.db)
    },
  }),
  attach: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'domain.attach',
    summary:
      'Attach a hostname to a site: driver check, DNS write, DNS verify, route setup, certificate and smoke test run as jobs; poll domains.get',
    input: AttachInputSchema,
    output: z.object({ domainId: z.string(), hostname: z.string() }),
    errors: ['not_found', 'conflict', 'collision', 'site_has_no_target'],
    prefetch: attachReads,
    handler: attachNew,
  }),
  renew: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'domain.renew',
    summary:
      'Renew the certificate of a green domain, or of a failed one whose route still serves it (a failed renew), on its node (no DNS verify); certState goes renewing, then issued',
    input: IdInputSchema,
    output: z.object({ renewing: z.literal(true), id: z.string() }),
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getDomainRecord(ctx.db, input.id)
      if (row.step !== 'green' && row.step !== 'failed')
        throw conflict(
          `${row.hostname} is in its ${STEP_LABELS[row.step]} step; renew once it is green or failed`,
        )
      const [route] = row.routeId
        ? await ctx.db.select({ status: routes.status }).from(routes).where(eq(routes.id, row.routeId))
        : []
      if (route?.status !== 'active' || !(await agentForSite(ctx.env, ctx.db, row.siteId)))
        throw conflict(
          `the chain to ${row.hostname} is gone: its route, site, instance or node no longer serves it; call domains.attach to set it up again`,
        )
      const now = new Date()
      const generation = row.generation + 1
      await commitGuarded(
        ctx.commit(
          [
            failUnless(ctx.db, stillGeneration(row)),
            ctx.db
              .update(domains)
              .set({
                step: 'renew',
                generation,
                attempts: 0,
                stepStartedAt: now,
                certState: 'renewing',
                verification: [
                  ...row.verification,
                  entry('renew', 'running', `renewing serial ${row.certSerial ?? 'unknown'}`),
                ],
                updatedAt: now,
              })
              .where(eq(domains.id, row.id)),
          ],
          { targetId: row.id, detail: { hostname: row.hostname } },
        ),
        changedMeanwhile(row),
      )
      await enqueueDomainStep(ctx.env, { id: row.id, generation })
      return { renewing: true as const, id: row.id }
    },
  }),
  setProxied: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'domain.set-proxied',
    summary:
      'Record the proxied flag (any driver); a provider_a domain applies it on its next attach (reattachToApply), other drivers never proxy',
    input: z.strictObject({ id: IdSchema, proxied: z.boolean() }),
    output: z.object({ proxied: z.boolean(), reattachToApply: z.boolean() }),
    errors: ['not_found'],
    async handler(input, ctx) {
      const row = await getDomainRecord(ctx.db, input.id)
      await ctx.commit(
        [
          ctx.db
            .update(domains)
            .set({ proxied: input.proxied, updatedAt: new Date() })
            .where(eq(domains.id, row.id)),
        ],
        { targetId: row.id, detail: { hostname: row.hostname, proxied: input.proxied } },
      )
      return { proxied: input.proxied, reattachToApply: row.driver === 'provider_a' }
    },
  }),
  detach: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'domain.detach',
    summary:
      'Detach a domain: its route leaves the node, then jobs delete the records the panel wrote, release the hostname and delete the row',
    input: IdInputSchema,
    output: z.object({ detached: z.boolean() }),
    errors: ['not_found', 'conflict'],
    async handler(input, ctx) {
      const row = await getDomainRecord(ctx.db, input.id)
      const audit = { targetId: row.id, detail: { hostname: row.hostname } }
      if (row.step === 'detach') {
        await ctx.commit([], { ...audit, detail: { ...audit.detail, again: true } })
        return { detached: true }
      }
      const removal = await routeRemoval(ctx.db, row.routeId)
      const now = new Date()
      const generation = row.generation + 1
      await commitGuarded(
        ctx.commit(
          [
            failUnless(ctx.db, stillGeneration(row)),
            ...(removal?.writes ?? []),
            ctx.db
              .update(domains)
              .set({
                step: 'detach',
                generation,
                attempts: 0,
                stepStartedAt: now,
                routeId: null,
                // Its route leaves the node now: the domain is no longer green from this answer on.
                certState: 'none',
                verification: [
                  ...row.verification,
                  entry(
                    'detach',
                    'running',
                    `${removal ? 'route leaving the node; ' : ''}deleting the records the panel wrote`,
                  ),
                ],
                updatedAt: now,
              })
              .where(eq(domains.id, row.id)),
            archiveDomainCertProbes(ctx.db, row.id, now),
          ],
          audit,
        ),
        changedMeanwhile(row),
      )
      await configureDomainCertProbes(ctx.env, ctx.db, row.id)
      if (removal) await enqueueReconcile(ctx.env, removal.nodeId)
      await enqueueDomainStep(ctx.env, { id: row.id, generation })
      return { detached: true }
    },
  }),
  testCredentials: procedure({
    kind: 'mutation',
    permission: 'domains:manage',
    audit: 'domain.test-credentials',
    summary: "Test a DNS account's stored token against its provider ({accountId}), or a driver ({driver})",
    input: TestCredentialsInputSchema,
    output: z.object({ ok: z.boolean(), detail: z.string() }),
    errors: ['not_found'],
    async handler(input, ctx) {
      const result = await testCredentials(ctx.db, ctx.env, input)
      await ctx.commit([], {
        targetId: 'accountId' in input ? input.accountId : input.driver,
        detail: { ok: result.ok },
      })
      return result
    },
  }),
}

import type { z } from '@hono/zod-openapi'
import { and, eq } from 'drizzle-orm'
import { requireAcceptedSuffix } from '../custom-hostnames/external-name'
import { isZoneCandidate } from '../custom-hostnames/facts'
import { planCustomHostname } from '../custom-hostnames/planner'
import { collision } from '../custom-hostnames/register'
import { commitGuarded, failUnless } from '../db/batch-guard'
import type { Db } from '../db/client'
import { isConstraintError } from '../db/constraint-error'
import { accounts, accountZones } from '../db/schema/accounts'
import { hostnameClaims } from '../db/schema/custom-hostnames'
import { dnsZones } from '../db/schema/dns-servers'
import { domains } from '../db/schema/domains'
import { instances, nodes, sites } from '../db/schema/fleet'
import { siteDefaultAccount } from '../dns-accounts/site-default'
import { agentAddressConflict, failedOnAgentAddress, notAnAgentAddress } from '../fleet/agent-hostname-guards'
import type { ProcedureContext } from '../rpc/define'
import { AppError, conflict, invalid, notFound } from '../rpc/errors'
import { prefetchReads } from '../rpc/prefetch'
import { enqueueDomainStep, entry } from './chain'
import { chooseDriver } from './driver-choice'
import { type DomainRecord, stillGeneration } from './rows'
import type { AttachInputSchema } from './schemas'

type Input = z.output<typeof AttachInputSchema>
type Attached = { domainId: string; hostname: string }

/**
 * attach's prefetch, read beside the caller's authentication and keyed by the input alone: the site's chain to its
 * node, the zones that could hold the hostname, its claim and domain, the DNS account the cascade gives the site,
 * and the node (if any) serving its agent under the hostname.
 */
export function attachReads(input: Input, db: Db) {
  return prefetchReads(
    [
      db
        .select({
          instanceId: sites.instanceId,
          nodeId: nodes.id,
          dnsTarget: nodes.dnsTarget,
          publicIpv4: nodes.publicIpv4,
          publicIpv6: nodes.publicIpv6,
        })
        .from(sites)
        .leftJoin(instances, eq(instances.id, sites.instanceId))
        .leftJoin(nodes, eq(nodes.id, instances.nodeId))
        .where(eq(sites.id, input.siteId)),
      db
        .select({ id: dnsZones.id, name: dnsZones.name })
        .from(dnsZones)
        .where(isZoneCandidate(dnsZones.name, input.hostname)),
      db
        .select({
          accountId: accountZones.accountId,
          zoneName: accountZones.zoneName,
          provider: accounts.provider,
          name: accounts.name,
        })
        .from(accountZones)
        .innerJoin(accounts, eq(accounts.id, accountZones.accountId))
        .where(and(eq(accounts.kind, 'dns'), isZoneCandidate(accountZones.zoneName, input.hostname))),
      db.select().from(hostnameClaims).where(eq(hostnameClaims.hostname, input.hostname)),
      db.select().from(domains).where(eq(domains.hostname, input.hostname)),
      siteDefaultAccount(db, 'dns', input.siteId),
      db.select({ name: nodes.name }).from(nodes).where(eq(nodes.agentHostname, input.hostname)),
    ],
    ([site, hosted, held, claims, existing, dnsDefault, agentNodes]) => ({
      site: site[0],
      hosted,
      held,
      claim: claims[0],
      existing: existing[0],
      dnsDefault: dnsDefault[0]?.account ?? null,
      agentNode: agentNodes[0],
    }),
  )
}

type AttachReads = ReturnType<ReturnType<typeof attachReads>['decode']>

/** A first attach: the claim, the row and the audit entry in one batch (a collision is decided by the claim's key), then the first job. */
export async function attachNew(input: Input, ctx: ProcedureContext, facts: AttachReads): Promise<Attached> {
  const { site } = facts
  if (!site) throw notFound(`site ${input.siteId}`)
  if (!site.nodeId) throw conflict("the site's instance or node is gone")
  if (facts.existing) return attachAgain(ctx, input, facts.existing)
  if (facts.claim) throw collision(input.hostname)
  if (facts.agentNode) throw agentAddressConflict(input.hostname, facts.agentNode.name)
  await requireAcceptedSuffix(ctx.env, input.hostname, {
    controlled: facts.hosted.length > 0 || facts.held.length > 0,
    issuer: async () => input.issuer ?? 'pebble',
  })
  const { driver, writerId } = chooseDriver(input, facts, facts.dnsDefault)
  const proxied = input.proxied ?? false
  if (proxied && driver !== 'provider_a')
    throw invalid('proxied', `only provider_a proxies; the driver is ${driver}`)
  const plan = planCustomHostname({
    hostname: input.hostname,
    hostedZones: facts.hosted,
    accountZones: facts.held,
    allowedZones: [],
    node: site,
    claim: 'none',
  })
  if (plan.missingTarget) throw new AppError('site_has_no_target', plan.missingTarget)
  const now = new Date()
  const row: DomainRecord = {
    id: crypto.randomUUID(),
    siteId: input.siteId,
    routeId: null,
    hostname: input.hostname,
    driver,
    writerId,
    dnsState: 'pending',
    issuer: input.issuer ?? 'pebble',
    certState: 'none',
    certExpiresAt: null,
    certSerial: null,
    proxied,
    appliedProxied: null,
    failureRemedy: null,
    verification: [entry('driver-check', 'running', `checking ${driver}`)],
    records: plan.records,
    diagnosis: null,
    written: [],
    step: 'driver-check',
    generation: 1,
    attempts: 0,
    stepStartedAt: now,
    createdAt: now,
    updatedAt: now,
  }
  try {
    await ctx.commit(
      [
        ctx.db.insert(hostnameClaims).values({
          hostname: row.hostname,
          kind: 'domain',
          siteId: row.siteId,
          ownerId: row.id,
          createdAt: now,
        }),
        ctx.db.insert(domains).values(row),
        notAnAgentAddress(ctx.db, row.hostname),
      ],
      {
        targetId: row.id,
        detail: { hostname: row.hostname, siteId: row.siteId, driver, issuer: row.issuer, proxied },
      },
    )
  } catch (error) {
    if (isConstraintError(error, 'UNIQUE')) throw collision(input.hostname)
    if (failedOnAgentAddress(error)) throw agentAddressConflict(input.hostname, null)
    if (isConstraintError(error, 'FOREIGN KEY')) throw conflict('the site was removed meanwhile')
    throw error
  }
  await enqueueDomainStep(ctx.env, row)
  return { domainId: row.id, hostname: row.hostname }
}

// The attach flow starts over when the domain failed, or when provider_a must apply a changed proxied flag.
function startsOver(row: DomainRecord): boolean {
  return (
    row.step === 'failed' ||
    (row.step === 'green' && row.driver === 'provider_a' && row.appliedProxied !== row.proxied)
  )
}

/**
 * Attach of a hostname the site already holds as a domain: answered as it is while the flow runs or once green;
 * a failed domain (or a provider_a one whose proxied flag changed) runs the flow again from the driver check, keeping
 * its driver and issuer. Another site's domain is a collision; a domain being detached is 409.
 */
async function attachAgain(ctx: ProcedureContext, input: Input, row: DomainRecord): Promise<Attached> {
  if (row.siteId !== input.siteId) throw collision(input.hostname)
  if (row.step === 'detach') throw conflict(`${row.hostname} is being detached; wait until it is gone`)
  const answer = { domainId: row.id, hostname: row.hostname }
  const audit = { targetId: row.id, detail: { hostname: row.hostname, siteId: row.siteId, again: true } }
  if (!startsOver(row)) {
    await ctx.commit([], audit)
    return answer
  }
  const now = new Date()
  const generation = row.generation + 1
  await commitGuarded(
    ctx.commit(
      [
        failUnless(ctx.db, stillGeneration(row)),
        ctx.db
          .update(domains)
          .set({
            step: 'driver-check',
            generation,
            attempts: 0,
            stepStartedAt: now,
            dnsState: 'pending',
            certState: row.routeId ? row.certState : 'none',
            failureRemedy: null,
            verification: [entry('driver-check', 'running', `checking ${row.driver}`)],
            updatedAt: now,
          })
          .where(eq(domains.id, row.id)),
      ],
      { ...audit, detail: { ...audit.detail, restarted: true } },
    ),
    () => conflict(`${row.hostname} changed meanwhile; attach again`),
  )
  await enqueueDomainStep(ctx.env, { id: row.id, generation })
  return answer
}

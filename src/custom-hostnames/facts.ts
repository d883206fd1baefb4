import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accountZones } from '../db/schema/accounts'
import { customHostnameSettings, hostnameClaims } from '../db/schema/custom-hostnames'
import { dnsZones } from '../db/schema/dns-servers'
import { instances, nodes, sites } from '../db/schema/fleet'
import { notFound } from '../rpc/errors'
import { type Plan, type PlanFacts, planCustomHostname } from './planner'

/** Every suffix of a hostname that could be its zone, the hostname itself included. */
export function zoneCandidates(hostname: string): string[] {
  const labels = hostname.split('.')
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'))
}

/**
 * Reads what the planner needs in one D1 round trip: the site's node, the self-hosted and connected zones that
 * could hold the hostname, the site's allow-list and the hostname's claim. 404 when the site is unknown.
 */
export async function loadPlanFacts(db: Db, siteId: string, hostname: string): Promise<PlanFacts> {
  const candidates = zoneCandidates(hostname)
  const [site, hosted, held, settings, claims] = await db.batch([
    db
      .select({ dnsTarget: nodes.dnsTarget, publicIpv4: nodes.publicIpv4, publicIpv6: nodes.publicIpv6 })
      .from(sites)
      .innerJoin(instances, eq(instances.id, sites.instanceId))
      .innerJoin(nodes, eq(nodes.id, instances.nodeId))
      .where(eq(sites.id, siteId)),
    db
      .select({ id: dnsZones.id, name: dnsZones.name })
      .from(dnsZones)
      .where(inArray(dnsZones.name, candidates)),
    db
      .select({ accountId: accountZones.accountId, zoneName: accountZones.zoneName })
      .from(accountZones)
      .where(inArray(accountZones.zoneName, candidates)),
    db
      .select({ allowedZones: customHostnameSettings.allowedZones })
      .from(customHostnameSettings)
      .where(eq(customHostnameSettings.siteId, siteId)),
    db
      .select({ siteId: hostnameClaims.siteId, kind: hostnameClaims.kind })
      .from(hostnameClaims)
      .where(eq(hostnameClaims.hostname, hostname)),
  ])
  const node = site[0]
  if (!node) throw notFound(`site ${siteId}`)
  const claim = claims[0]
  return {
    hostname,
    hostedZones: hosted,
    accountZones: held,
    allowedZones: settings[0]?.allowedZones ?? [],
    node,
    claim: !claim
      ? 'none'
      : claim.kind === 'custom-hostname' && claim.siteId === siteId
        ? 'this-site'
        : 'elsewhere',
  }
}

/** The plan for a hostname on a site, as probe and register both see it. */
export async function planFor(db: Db, siteId: string, hostname: string): Promise<Plan> {
  return planCustomHostname(await loadPlanFacts(db, siteId, hostname))
}

import { type AnyColumn, type SQL, sql } from 'drizzle-orm'
import type { Vhost } from '../agent-contract/v1'
import type { Db } from '../db/client'
import { accountZones } from '../db/schema/accounts'
import { customHostnameSettings, hostnameClaims } from '../db/schema/custom-hostnames'
import { dnsZones } from '../db/schema/dns-servers'
import { instances, nodes, sites } from '../db/schema/fleet'
import type { Env } from '../env'
import { notFound } from '../rpc/errors'
import { requireAcceptedSuffix } from './external-name'
import { type Plan, type PlanFacts, planCustomHostname } from './planner'

/** Every suffix of a hostname that could be its zone, the hostname itself included. */
function zoneCandidates(hostname: string): string[] {
  const labels = hostname.split('.')
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'))
}

/**
 * `column` is one of the hostname's candidate zones. The candidates travel as one JSON parameter however many
 * labels the hostname has (D1 binds at most 100 parameters per statement).
 */
export function isZoneCandidate(column: AnyColumn, hostname: string): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(zoneCandidates(hostname))}))`
}

// One row of JSON columns: the whole read is a single statement, on probe's hot path.
export interface FactsRow {
  node: string | null
  hosted: string
  held: string
  allowed: string | null
  claim: string | null
}

/**
 * The one statement that reads what the planner needs: the site's node, the self-hosted and connected zones that
 * could hold the hostname, the site's allow-list and the hostname's claim. A select (rather than raw SQL) so it
 * can go in a batch.
 */
export function planFactsRead(db: Db, siteId: string, hostname: string) {
  // The subqueries sit in the from clause, where drizzle names each column with its table.
  const facts = sql`(select
    (select json_object('dnsTarget', ${nodes.dnsTarget}, 'publicIpv4', ${nodes.publicIpv4}, 'publicIpv6', ${nodes.publicIpv6})
       from ${sites} join ${instances} on ${instances.id} = ${sites.instanceId} join ${nodes} on ${nodes.id} = ${instances.nodeId}
       where ${sites.id} = ${siteId}) as node,
    (select json_group_array(json_object('id', ${dnsZones.id}, 'name', ${dnsZones.name})) from ${dnsZones}
       where ${isZoneCandidate(dnsZones.name, hostname)}) as hosted,
    (select json_group_array(json_object('accountId', ${accountZones.accountId}, 'zoneName', ${accountZones.zoneName}))
       from ${accountZones} where ${isZoneCandidate(accountZones.zoneName, hostname)}) as held,
    (select ${customHostnameSettings.allowedZones} from ${customHostnameSettings}
       where ${customHostnameSettings.siteId} = ${siteId}) as allowed,
    (select json_object('siteId', ${hostnameClaims.siteId}, 'kind', ${hostnameClaims.kind}) from ${hostnameClaims}
       where ${hostnameClaims.hostname} = ${hostname}) as claim) as facts`
  return db
    .select({
      node: sql<string | null>`facts.node`,
      hosted: sql<string>`facts.hosted`,
      held: sql<string>`facts.held`,
      allowed: sql<string | null>`facts.allowed`,
      claim: sql<string | null>`facts.claim`,
    })
    .from(facts)
}

/** The planner's facts from `planFactsRead`'s row; 404 when the site is unknown. */
export function toPlanFacts(row: FactsRow | undefined, siteId: string, hostname: string): PlanFacts {
  if (!row?.node) throw notFound(`site ${siteId}`)
  const claim = row.claim ? (JSON.parse(row.claim) as { siteId: string; kind: string }) : null
  return {
    hostname,
    hostedZones: JSON.parse(row.hosted) as PlanFacts['hostedZones'],
    accountZones: JSON.parse(row.held) as PlanFacts['accountZones'],
    allowedZones: row.allowed ? (JSON.parse(row.allowed) as string[]) : [],
    node: JSON.parse(row.node) as PlanFacts['node'],
    claim: !claim
      ? 'none'
      : claim.kind === 'custom-hostname' && claim.siteId === siteId
        ? 'this-site'
        : 'elsewhere',
  }
}

/** Reads what the planner needs in one statement (`planFactsRead`); 404 when the site is unknown. */
export async function loadPlanFacts(db: Db, siteId: string, hostname: string): Promise<PlanFacts> {
  const [row] = await planFactsRead(db, siteId, hostname)
  return toPlanFacts(row, siteId, hostname)
}

/**
 * The plan from the facts, as probe and register both see it; 400 when the hostname's suffix is not acceptable
 * (`issuer` is asked only for a special-use name outside the zones the panel controls).
 */
export async function planFromFacts(
  env: Env,
  facts: PlanFacts,
  issuer: () => Promise<Vhost['issuer']>,
): Promise<Plan> {
  await requireAcceptedSuffix(env, facts.hostname, {
    controlled: facts.hostedZones.length > 0 || facts.accountZones.length > 0,
    issuer,
  })
  return planCustomHostname(facts)
}

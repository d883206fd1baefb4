import { isIP } from '../lib/ip'
import { registrableDomain } from './hostname'

export type Tier = 'hosted' | 'connected' | 'external'
export type Verdict = 'auto' | 'instructions' | 'blocked'
export type PlanReason =
  | 'external-zone'
  | 'zone-not-allow-listed'
  | 'ambiguous-zone'
  | 'collision'
  | 'foreign-records'
  | 'site_has_no_target'

export interface PlannedRecord {
  type: 'CNAME' | 'A' | 'AAAA'
  name: string
  value: string
  ttl: number
}

/** Who could write the hostname's zone: the self-hosted nameservers, or one connected DNS account. */
export type ZoneWriter = { kind: 'hosted'; zoneId: string } | { kind: 'connected'; accountId: string }

export interface PlanFacts {
  hostname: string
  /** Self-hosted zones whose name is a suffix of the hostname (or equal to it). */
  hostedZones: { id: string; name: string }[]
  /** Zone-cache entries of connected DNS accounts whose zone is a suffix of the hostname. */
  accountZones: { accountId: string; zoneName: string }[]
  /** The site's allow-list: zone names, or `*` for every zone the installation controls. */
  allowedZones: string[]
  /** The node that hosts the site. */
  node: { dnsTarget: string | null; publicIpv4: string | null; publicIpv6: string | null }
  /** Where the hostname is already claimed: nowhere, by this site's custom hostname, or anywhere else. */
  claim: 'none' | 'this-site' | 'elsewhere'
}

export interface Plan {
  verdict: Verdict
  reason: PlanReason | null
  tier: Tier
  zoneName: string
  records: PlannedRecord[]
  cnameTarget: string
  registered: boolean
  /** Set only when the verdict is auto: where register writes the records. */
  writer: ZoneWriter | null
  /** Set when the node offers nothing to point the hostname at: what the operator must set. */
  missingTarget: string | null
}

export const RECORD_TTL = 300

/** The pure plan shared by probe and register: zone, tier, verdict and the exact records. */
export function planCustomHostname(facts: PlanFacts): Plan {
  const zone = resolveZone(facts)
  const { records, missingTarget } = plannedRecords(
    facts.hostname,
    facts.hostname === zone.zoneName,
    facts.node,
  )
  const base = {
    tier: zone.tier,
    zoneName: zone.zoneName,
    records,
    cnameTarget: facts.node.dnsTarget ?? facts.node.publicIpv4 ?? facts.node.publicIpv6 ?? '',
    registered: facts.claim === 'this-site',
    missingTarget,
  }
  if (facts.claim === 'elsewhere') return { ...base, verdict: 'blocked', reason: 'collision', writer: null }
  // Nothing to point at: an instructions row with no records, planned again when the app registers again.
  if (missingTarget) return { ...base, verdict: 'instructions', reason: 'site_has_no_target', writer: null }
  if (zone.ambiguous) return { ...base, verdict: 'instructions', reason: 'ambiguous-zone', writer: null }
  if (!zone.writer) return { ...base, verdict: 'instructions', reason: 'external-zone', writer: null }
  if (!allowListed(facts.allowedZones, zone.zoneName))
    return { ...base, verdict: 'instructions', reason: 'zone-not-allow-listed', writer: null }
  return { ...base, verdict: 'auto', reason: null, writer: zone.writer }
}

/** Whether the allow-list lets the panel write into the zone. Deny by default. */
export function allowListed(allowedZones: string[], zoneName: string): boolean {
  return allowedZones.includes('*') || allowedZones.includes(zoneName)
}

// The longest suffix any holder has wins; two holders of that suffix make it ambiguous and the panel never guesses.
function resolveZone(facts: PlanFacts): {
  tier: Tier
  zoneName: string
  writer: ZoneWriter | null
  ambiguous: boolean
} {
  const longest = Math.max(
    0,
    ...facts.hostedZones.map((zone) => zone.name.length),
    ...facts.accountZones.map((zone) => zone.zoneName.length),
  )
  const hosted = facts.hostedZones.filter((zone) => zone.name.length === longest)
  const accounts = [
    ...new Set(facts.accountZones.filter((zone) => zone.zoneName.length === longest).map((z) => z.accountId)),
  ]
  const hostedZone = hosted[0]
  const accountId = accounts[0]
  if (hostedZone) {
    const ambiguous = accounts.length > 0
    return {
      tier: 'hosted',
      zoneName: hostedZone.name,
      ambiguous,
      writer: { kind: 'hosted', zoneId: hostedZone.id },
    }
  }
  if (accountId) {
    const zoneName = facts.accountZones.find((zone) => zone.zoneName.length === longest)?.zoneName ?? ''
    return {
      tier: 'connected',
      zoneName,
      ambiguous: accounts.length > 1,
      writer: { kind: 'connected', accountId },
    }
  }
  return { tier: 'external', zoneName: registrableDomain(facts.hostname), ambiguous: false, writer: null }
}

// Below the apex a CNAME to the node's DNS target; at an apex (where a CNAME cannot sit) or when the target is an
// address, A/AAAA records with the node's addresses.
function plannedRecords(
  hostname: string,
  apex: boolean,
  node: PlanFacts['node'],
): { records: PlannedRecord[]; missingTarget: string | null } {
  const target = node.dnsTarget
  if (target && !apex && !isIP(target))
    return {
      records: [{ type: 'CNAME', name: hostname, value: target, ttl: RECORD_TTL }],
      missingTarget: null,
    }
  const v4 = node.publicIpv4 ?? (target && isIP(target) === 4 ? target : null)
  const v6 = node.publicIpv6 ?? (target && isIP(target) === 6 ? target : null)
  const records: PlannedRecord[] = [
    ...(v4 ? [{ type: 'A' as const, name: hostname, value: v4, ttl: RECORD_TTL }] : []),
    ...(v6 ? [{ type: 'AAAA' as const, name: hostname, value: v6, ttl: RECORD_TTL }] : []),
  ]
  if (records.length > 0) return { records, missingTarget: null }
  const missingTarget = apex
    ? "set the hosting node's publicIpv4 or publicIpv6: an apex hostname needs A/AAAA records"
    : "set the hosting node's dnsTarget (a hostname to CNAME to) or its public addresses"
  return { records, missingTarget }
}

import { bareName } from '../../lib/dns-name'
import { DNS_RCODES, type DohResult } from '../../outside/doh'
import { dsText, parseDs } from '../dnssec/dnssec'
import { canonicalIpv6 } from '../records/validation'
import type { DnsCheck } from '../schemas'

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].sort()
}

function rcodeProblem(result: DohResult, name: string, what: string): string | null {
  if (result.status === 0) return null
  const rcode = DNS_RCODES[result.status] ?? `rcode ${result.status}`
  if (result.status === 3) return `${name} does not exist in public DNS (NXDOMAIN): ${what}`
  return `the resolver answered ${rcode} for ${name}: ${what}`
}

function difference(expected: readonly string[], found: readonly string[]): string {
  const missing = expected.filter((v) => !found.includes(v))
  const extra = found.filter((v) => !expected.includes(v))
  return [
    missing.length ? `missing ${missing.join(', ')}` : '',
    extra.length ? `unexpected ${extra.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ')
}

/**
 * Compares the NS set a recursive resolver returns for the zone with the boxes' NS set; equal sets pass. Once
 * the delegation works, the resolver answers with the zone's own NS set (from the boxes), not the parent's
 * referral, so a registrar that lists extra or fewer nameservers can still pass; `detail` says so.
 */
export function delegationCheck(zone: string, servedNs: readonly string[], result: DohResult): DnsCheck {
  const expected = unique(servedNs.map((ns) => bareName(ns.toLowerCase())))
  const found = unique(result.data.map((ns) => bareName(ns.toLowerCase())))
  const compared = `the NS set a recursive resolver returns for ${zone} (the zone's own NS set once delegated, not the registrar's list) with the NS set of the boxes with PowerDNS`
  const problem = rcodeProblem(result, zone, 'set the boxes as its nameservers at the registrar')
  if (problem) return { ok: false, expected, found, detail: `compared ${compared}: ${problem}` }
  if (found.length === 0) {
    return {
      ok: false,
      expected,
      found,
      detail: `compared ${compared}: the resolver returns no NS records; set the boxes as its nameservers at the registrar`,
    }
  }
  const diff = difference(expected, found)
  if (!diff) return { ok: true, expected, found, detail: `compared ${compared}: they are equal` }
  return {
    ok: false,
    expected,
    found,
    detail: `compared ${compared}: they differ, ${diff}; fix the nameservers at the registrar`,
  }
}

/**
 * Compares the DS set published for the zone with the DS of the keys the boxes sign with. Signed: at least
 * one published DS must match one of ours. Unsigned: no DS may be published, or validating resolvers fail.
 */
export function dsCheck(zone: string, expectedDs: readonly string[], result: DohResult): DnsCheck {
  const expected = unique(expectedDs)
  const found = unique(result.data.map((text) => parseDs(text)).flatMap((ds) => (ds ? [dsText(ds)] : [])))
  const problem = rcodeProblem(result, zone, 'the delegation or its DS is broken')
  if (problem) return { ok: false, expected, found, detail: problem }
  if (expected.length === 0) {
    return found.length === 0
      ? { ok: true, expected, found, detail: `${zone} is unsigned and the parent publishes no DS` }
      : {
          ok: false,
          expected,
          found,
          detail: `${zone} is unsigned but the parent publishes DS records; remove them at the registrar or resolution fails`,
        }
  }
  if (found.length === 0) {
    return {
      ok: false,
      expected,
      found,
      detail: `the parent publishes no DS for ${zone}; enter one at the registrar`,
    }
  }
  if (found.some((ds) => expected.includes(ds))) {
    return {
      ok: true,
      expected,
      found,
      detail: `the parent publishes a DS that matches the zone's signing key`,
    }
  }
  return {
    ok: false,
    expected,
    found,
    detail: `no published DS matches the zone's signing key; replace it at the registrar`,
  }
}

function normalAddress(address: string): string {
  return canonicalIpv6(address) ?? address.trim()
}

/**
 * Compares the A and AAAA records a recursive resolver returns for a nameserver's host name with the box's
 * addresses. The registrar's glue itself is not read (that takes a query to the parent's servers); when the
 * host name lives in a zone these boxes serve, the answer comes from the boxes, so `detail` says what was read.
 */
export function glueCheck(
  hostname: string,
  addresses: readonly string[],
  v4: DohResult,
  v6: DohResult,
): DnsCheck {
  const expected = unique(addresses.map(normalAddress))
  const found = unique([...v4.data, ...v6.data].map(normalAddress))
  const compared = `the A and AAAA records a recursive resolver returns for ${hostname} (not the registrar's glue) with this box's addresses`
  const problem = rcodeProblem(v4, hostname, 'publish its addresses and its glue at the registrar')
  if (problem) return { ok: false, expected, found, detail: `compared ${compared}: ${problem}` }
  const diff = difference(expected, found)
  if (!diff) return { ok: true, expected, found, detail: `compared ${compared}: they are equal` }
  return {
    ok: false,
    expected,
    found,
    detail: `compared ${compared}: they differ, ${diff}; fix its A/AAAA records and its glue at the registrar`,
  }
}

import { absoluteName, bareName } from '../../lib/dns-name'
import type { PowerDnsRRset, RRsetChange } from '../../outside/powerdns'
import { fromContent, toContent } from '../../outside/powerdns-content'
import type { RecordSet } from './validation'

/** A PowerDNS record set in the panel's form; disabled records are not served, so they are left out. */
export function toRecordSet(rrset: PowerDnsRRset): RecordSet {
  return {
    name: bareName(rrset.name),
    type: rrset.type,
    ttl: rrset.ttl,
    values: rrset.records.filter((r) => !r.disabled).map((r) => fromContent(rrset.type, r.content)),
  }
}

/** Every record set of a zone, ordered by name then type. */
export function toRecordSets(rrsets: readonly PowerDnsRRset[]): RecordSet[] {
  return rrsets.map(toRecordSet).sort((a, b) => a.name.localeCompare(b.name) || a.type.localeCompare(b.type))
}

/** The PATCH entry that replaces the whole (name, type) set with these values. */
export function replaceChange(record: RecordSet): RRsetChange {
  return {
    name: absoluteName(record.name),
    type: record.type,
    changetype: 'REPLACE',
    ttl: record.ttl,
    records: record.values.map((value) => ({ content: toContent(record.type, value), disabled: false })),
  }
}

/** The PATCH entry that removes the (name, type) set. */
export function deleteChange(name: string, type: string): RRsetChange {
  return { name: absoluteName(name), type, changetype: 'DELETE' }
}

// PowerDNS gives the NS set it creates a zone with its default TTL of an hour; replacing it keeps that.
const APEX_NS_TTL = 3600

/** The PATCH entry that makes `hostnames` the zone's apex NS set. */
export function nameserverChange(zone: string, hostnames: readonly string[]): RRsetChange {
  return {
    name: absoluteName(zone),
    type: 'NS',
    changetype: 'REPLACE',
    ttl: APEX_NS_TTL,
    records: hostnames.map((host) => ({ content: absoluteName(host), disabled: false })),
  }
}

/** The apex NS set a box serves for the zone, as bare lowercase names, sorted. */
export function apexNameservers(rrsets: readonly PowerDnsRRset[], zone: string): string[] {
  const apex = rrsets.find((r) => r.type === 'NS' && bareName(r.name).toLowerCase() === zone)
  return (apex?.records ?? []).map((r) => bareName(r.content).toLowerCase()).sort()
}

// PowerDNS's words for a CNAME beside other data at one name, whichever of the two came first.
const CNAME_CONFLICT = /Conflicts with pre-existing RRset/i

/** The input field a PowerDNS refusal of a record set is about: the type for a CNAME conflict, else the values. */
export function rejectedRecordField(error: string): string {
  return CNAME_CONFLICT.test(error) ? 'type' : 'values'
}

/** The types a zone holds at one name. */
export function typesAt(rrsets: readonly PowerDnsRRset[], name: string): string[] {
  return rrsets.filter((r) => bareName(r.name).toLowerCase() === name).map((r) => r.type)
}

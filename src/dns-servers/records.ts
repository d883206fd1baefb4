import type { PowerDnsRRset, RRsetChange } from '../outside/powerdns'
import { absoluteName, bareName, fromContent, toContent } from '../outside/powerdns-content'
import type { RecordSet } from './record-validation'

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

/** The types a zone holds at one name. */
export function typesAt(rrsets: readonly PowerDnsRRset[], name: string): string[] {
  return rrsets.filter((r) => bareName(r.name).toLowerCase() === name).map((r) => r.type)
}

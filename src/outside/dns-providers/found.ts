import { normalizeDnsName } from './records'
import type { DnsRecordFound } from './types'

// Types whose content is one host name.
const HOST_TYPES = new Set(['CNAME', 'NS', 'PTR'])

/** How a provider's listing writes things the panel must compare in its own form. */
export interface ListingForm {
  /**
   * `absolute`: a host name target is fully qualified, with or without its trailing dot. `zone-file`: as a zone
   * file writes it, relative to the zone unless it ends in a dot. Either way `@` is the zone apex.
   */
  targets: 'absolute' | 'zone-file'
  /** The text of TXT content as the provider lists it. */
  txt(content: string): string
}

function hostTarget(target: string, zoneName: string, form: ListingForm['targets']): string {
  const host = target.trim()
  if (host === '@') return normalizeDnsName(zoneName)
  if (form === 'zone-file' && !host.endsWith('.')) return normalizeDnsName(`${host}.${zoneName}`)
  return normalizeDnsName(host)
}

/** A listed record in the panel's form; `name` is already fully qualified. */
export function foundRecord(zoneName: string, form: ListingForm, listed: DnsRecordFound): DnsRecordFound {
  const type = listed.type.toUpperCase()
  const content = HOST_TYPES.has(type)
    ? hostTarget(listed.content, zoneName, form.targets)
    : type === 'TXT'
      ? form.txt(listed.content)
      : listed.content
  return { ...listed, type, name: normalizeDnsName(listed.name), content }
}

/** Keeps the records at exactly `name`, whatever the provider's filter matched (or ignored). */
export function recordsAt(records: readonly DnsRecordFound[], name: string): DnsRecordFound[] {
  const wanted = normalizeDnsName(name)
  return records.filter((record) => record.name === wanted)
}

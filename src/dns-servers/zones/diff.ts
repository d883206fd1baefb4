import type { PowerDnsRRset, RRsetChange } from '../../outside/powerdns'

// Each box keeps its own SOA (PowerDNS bumps the serial on every API edit), so SOA is never copied.
const PER_BOX_TYPES = new Set(['SOA'])

function key(rrset: PowerDnsRRset): string {
  return `${rrset.name.toLowerCase()}|${rrset.type}`
}

function fingerprint(rrset: PowerDnsRRset): string {
  const records = rrset.records.map((r) => `${r.disabled ? '!' : ''}${r.content}`).sort()
  return `${rrset.ttl}|${records.join('\n')}`
}

function byKey(rrsets: readonly PowerDnsRRset[]): Map<string, PowerDnsRRset> {
  return new Map(rrsets.filter((r) => !PER_BOX_TYPES.has(r.type)).map((r) => [key(r), r]))
}

/** The PATCH entries that turn `current` into `desired`: REPLACE what differs or is missing, DELETE extras. */
export function rrsetChanges(
  desired: readonly PowerDnsRRset[],
  current: readonly PowerDnsRRset[],
): RRsetChange[] {
  const want = byKey(desired)
  const have = byKey(current)
  const changes: RRsetChange[] = []
  for (const [k, rrset] of want) {
    const existing = have.get(k)
    if (existing && fingerprint(existing) === fingerprint(rrset)) continue
    changes.push({
      name: rrset.name,
      type: rrset.type,
      changetype: 'REPLACE',
      ttl: rrset.ttl,
      records: rrset.records,
    })
  }
  for (const [k, rrset] of have) {
    if (!want.has(k)) changes.push({ name: rrset.name, type: rrset.type, changetype: 'DELETE' })
  }
  return changes
}

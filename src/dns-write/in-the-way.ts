import { sameValue, type WantedRecord } from './name-writer'

// A CNAME shares its name with nothing; addresses share theirs with anything but a CNAME (or another address).
const ADDRESS_CONFLICTS = new Set(['A', 'AAAA', 'CNAME', 'ALIAS', 'ANAME'])

type Held = { type: string; value: string }

/** Whether `list` holds `record` (same type, same value). */
export function holds(list: readonly Held[], record: Held): boolean {
  return list.some((r) => r.type === record.type && sameValue(r.value, record.value))
}

/**
 * The records at the name, other than the panel's own, that stand in the way of `wanted`: any record beside a
 * CNAME, and an address or CNAME beside addresses, unless it is exactly one of the wanted records (then it counts
 * as present, and stays someone else's). Other records (the apex's SOA and NS, MX, TXT, CAA) coexist.
 */
export function recordsInTheWay<T extends Held>(wanted: readonly WantedRecord[], others: readonly T[]): T[] {
  const cname = wanted.some((w) => w.type === 'CNAME')
  return others.filter((record) => (cname || ADDRESS_CONFLICTS.has(record.type)) && !holds(wanted, record))
}

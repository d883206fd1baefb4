import { bareName } from '../../lib/dns-name'
import type { Issue } from '../../rpc/errors'

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT'] as const
export type RecordType = (typeof RECORD_TYPES)[number]

export const TTL_MIN = 60
export const TTL_MAX = 86_400
export const MAX_VALUES = 100
export const MAX_TXT_LENGTH = 2048

/** A record set as the panel speaks it: a bare name, a type, a TTL and the values (no quoting, no dots). */
export interface RecordSet {
  name: string
  type: string
  ttl: number
  values: string[]
}

export type Checked<T> = { ok: true; value: T } | { ok: false; issue: Issue }

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/

function fail<T>(path: string, message: string): Checked<T> {
  return { ok: false, issue: { path, message } }
}

/** True for a lowercase name made of letter/digit/hyphen/underscore labels, at most 253 characters. */
export function isDnsName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => LABEL.test(label))
}

/** The owner name inside `zone`: lowercased, no trailing dot, `*` allowed only as the leftmost label. */
export function checkOwnerName(zone: string, raw: string): Checked<string> {
  const name = bareName(raw.trim().toLowerCase())
  const [first, ...rest] = name.split('.')
  const plain = first === '*' ? rest.join('.') : name
  if (!isDnsName(plain) || name.length > 253) {
    return fail(
      'name',
      'must be a DNS name of letters, digits, hyphens and underscores (a leading *. is allowed)',
    )
  }
  if (name !== zone && !name.endsWith(`.${zone}`)) return fail('name', `must be ${zone} or a name inside it`)
  return { ok: true, value: name }
}

/** Expands an IPv6 address to its 8 groups, or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address
  const tail: number[] = []
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (v4?.[1] && v4[2]) {
    if (!IPV4.test(v4[2])) return null
    const [a = 0, b = 0, c = 0, d = 0] = v4[2].split('.').map(Number)
    tail.push((a << 8) | b, (c << 8) | d)
    text = v4[1].endsWith('::') ? v4[1] : v4[1].slice(0, -1)
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const parse = (part: string | undefined) => (part ? part.split(':') : [])
  const head = parse(halves[0])
  const rest = parse(halves[1])
  if (![...head, ...rest].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null
  const explicit = head.length + rest.length + tail.length
  const missing = 8 - explicit
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  return [
    ...head.map((g) => Number.parseInt(g, 16)),
    ...Array<number>(missing).fill(0),
    ...rest.map((g) => Number.parseInt(g, 16)),
    ...tail,
  ]
}

/** RFC 5952 text of an IPv6 address (lowercase, longest zero run as `::`), or null when it is not one. */
export function canonicalIpv6(address: string): string | null {
  const groups = ipv6Groups(address.toLowerCase())
  if (!groups) return null
  let bestStart = -1
  let bestLength = 1
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) {
      bestStart = i
      bestLength = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`
}

function checkTarget(path: string, raw: string): Checked<string> {
  const target = bareName(raw.trim().toLowerCase())
  if (!isDnsName(target)) return fail(path, 'must be a host name')
  return { ok: true, value: target }
}

function checkValue(type: RecordType, raw: string, path: string): Checked<string> {
  switch (type) {
    case 'A':
      return IPV4.test(raw.trim()) ? { ok: true, value: raw.trim() } : fail(path, 'must be an IPv4 address')
    case 'AAAA': {
      const canonical = canonicalIpv6(raw.trim())
      return canonical ? { ok: true, value: canonical } : fail(path, 'must be an IPv6 address')
    }
    case 'CNAME':
      return checkTarget(path, raw)
    case 'MX': {
      const match = /^(\d{1,5})\s+(\S+)$/.exec(raw.trim())
      if (!match?.[1] || !match[2] || Number(match[1]) > 65_535) {
        return fail(path, 'must be "<priority 0-65535> <mail host>", e.g. "10 mail.example.com"')
      }
      if (match[2] === '.') return { ok: true, value: `${Number(match[1])} .` }
      const host = checkTarget(path, match[2])
      return host.ok ? { ok: true, value: `${Number(match[1])} ${host.value}` } : host
    }
    case 'TXT':
      if (raw.length === 0) return fail(path, 'must not be empty')
      if (raw.length > MAX_TXT_LENGTH) return fail(path, `must be at most ${MAX_TXT_LENGTH} characters`)
      if (!/^[\x20-\x7e]*$/.test(raw)) return fail(path, 'must be printable ASCII')
      return { ok: true, value: raw }
  }
}

/**
 * Checks a record set for `zone` and normalises it (lowercase names without the trailing dot, canonical
 * IPv6, `<priority> <host>` MX). The first problem comes back as an issue naming the field.
 */
export function checkRecordSet(zone: string, input: RecordSet & { type: RecordType }): Checked<RecordSet> {
  const name = checkOwnerName(zone, input.name)
  if (!name.ok) return name
  if (!Number.isInteger(input.ttl) || input.ttl < TTL_MIN || input.ttl > TTL_MAX) {
    return fail('ttl', `must be an integer from ${TTL_MIN} to ${TTL_MAX}`)
  }
  if (input.values.length === 0 || input.values.length > MAX_VALUES) {
    return fail('values', `must hold 1 to ${MAX_VALUES} values`)
  }
  if (input.type === 'CNAME') {
    if (name.value === zone) return fail('name', 'a CNAME cannot be at the zone apex')
    if (input.values.length !== 1) return fail('values', 'a CNAME has exactly one value')
  }
  const values: string[] = []
  for (const [i, raw] of input.values.entries()) {
    const value = checkValue(input.type, raw, `values.${i}`)
    if (!value.ok) return value
    if (values.includes(value.value)) return fail(`values.${i}`, 'is a duplicate of an earlier value')
    values.push(value.value)
  }
  return { ok: true, value: { name: name.value, type: input.type, ttl: input.ttl, values } }
}

/**
 * A CNAME owns its name alone: refuses a CNAME where other data exists, and other data where a CNAME exists.
 * `typesAtName` are the types the zone already holds at the record's name.
 */
export function cnameConflict(record: RecordSet, typesAtName: readonly string[]): Issue | null {
  const others = typesAtName.filter((type) => type !== record.type)
  if (record.type === 'CNAME' && others.length > 0) {
    return {
      path: 'type',
      message: `a CNAME cannot sit beside other data at ${record.name} (${others.join(', ')})`,
    }
  }
  if (record.type !== 'CNAME' && others.includes('CNAME')) {
    return { path: 'type', message: `${record.name} holds a CNAME, which allows no other data beside it` }
  }
  return null
}

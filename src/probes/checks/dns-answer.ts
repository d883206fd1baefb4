import { bareName } from '../../lib/dns-name.ts'
import type { DnsConfig } from '../config'
import type { Verdict } from './verdict.ts'

// How a DNS answer is judged, shared by the edge (dns.ts, through the DoH resolver) and the node agent (through
// the node's own resolver).

type RecordType = DnsConfig['recordType']

const MAX_SHOWN = 300

/** A TXT record's strings joined, as SPF and DMARC read them: `"v=spf1 " "-all"` is `v=spf1 -all`. */
function txtText(value: string): string {
  const strings = [...value.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'))
  return strings.length > 0 ? strings.join('') : value
}

/** An IPv6 address in its RFC 5952 form (the URL parser's), or null when it is none. */
function canonicalIpv6(text: string): string | null {
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1)
  } catch {
    return null
  }
}

/** A value as DNS means it, so an expected value matches its answer however either is spelled. */
function comparable(type: RecordType, value: string): string {
  const text = value.trim()
  switch (type) {
    case 'TXT':
      return txtText(text)
    case 'AAAA':
      return canonicalIpv6(text) ?? text.toLowerCase()
    case 'MX':
      return text
        .toLowerCase()
        .split(/\s+/)
        .map((part) => bareName(part))
        .join(' ')
    default:
      return bareName(text.toLowerCase())
  }
}

const shown = (data: readonly string[]) => {
  const text = data.join(', ')
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text
}

/**
 * Judges the records of an answer that exists (NOERROR): none is down; with expectedValues, all present is up,
 * some degraded (the missing named), none down.
 */
export function judgeDnsAnswer(
  type: RecordType,
  data: readonly string[],
  expectedValues: readonly string[],
  latencyMs: number,
): Verdict {
  if (data.length === 0) return { outcome: 'down', latencyMs, detail: `no ${type} records` }
  const present = new Set(data.map((value) => comparable(type, value)))
  const missing = expectedValues.filter((value) => !present.has(comparable(type, value)))
  if (missing.length === 0) return { outcome: 'up', latencyMs, detail: `${type} ${shown(data)}` }
  return {
    outcome: missing.length < expectedValues.length ? 'degraded' : 'down',
    latencyMs,
    detail: `${type} is missing ${shown(missing)} (answer: ${shown(data)})`,
  }
}

import {
  type Answer,
  CHECKING_DISABLED,
  decode,
  encode,
  type Packet,
  RECURSION_DESIRED,
} from '@dnsquery/dns-packet'
import { toRcode } from '@dnsquery/dns-packet/rcodes.js'
import { fetchWithDeadline } from './fetch-with-deadline'

/** The record types the panel looks up, with their numbers in DNS answers. */
export const DNS_TYPE_CODES = {
  A: 1,
  NS: 2,
  CNAME: 5,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  DS: 43,
  DNSKEY: 48,
  CAA: 257,
} as const
export type DnsLookupType = keyof typeof DNS_TYPE_CODES

/** DNS response codes, by the number a DNS answer carries. */
export const DNS_RCODES: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  5: 'REFUSED',
}

/** One answer record of the asked type: its owner name (without the final dot), its data as `data` has it, its TTL. */
export interface DohAnswer {
  name: string
  data: string
  ttl: number
}

export interface DohResult {
  /** The DNS response code (0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, ...). */
  status: number
  /** Each answer of the asked type in presentation format (names with their final dot), in the resolver's order. */
  data: string[]
  /** The same answers with their owner names and TTLs, in the same order. */
  answers: DohAnswer[]
}

/** The resolver did not give a usable answer (network, timeout, HTTP status or body). */
export class DohError extends Error {}

const DEFAULT_TIMEOUT_MS = 3000
// RFC 8484: a DNS message over HTTP is at most 65535 bytes.
const DOH_MAX_BYTES = 65_535
export const DNS_MESSAGE = 'application/dns-message'

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
const fqdn = (name: string) => `${name.replace(/\.$/, '')}.`
const quoted = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`

/** One answer's data as a zone file (and DoH JSON) writes it, or null for a type the panel never asks for. */
function presentation(answer: Answer): string | null {
  switch (answer.type) {
    case 'A':
    case 'AAAA':
      return answer.data
    case 'CNAME':
    case 'NS':
      return fqdn(answer.data)
    case 'MX':
      return `${answer.data.preference ?? 0} ${fqdn(answer.data.exchange)}`
    case 'TXT': {
      const strings = Array.isArray(answer.data) ? answer.data : [answer.data]
      const decoder = new TextDecoder()
      return strings.map((s) => quoted(typeof s === 'string' ? s : decoder.decode(s))).join(' ')
    }
    case 'DS':
      return `${answer.data.keyTag} ${answer.data.algorithm} ${answer.data.digestType} ${hex(answer.data.digest)}`
    case 'CAA':
      // RFC 8659 section 4.1.1: `<flags> <tag> "<value>"`, e.g. `0 issue "letsencrypt.org"`.
      return `${answer.data.flags ?? 0} ${answer.data.tag} ${quoted(answer.data.value)}`
    case 'DNSKEY': {
      const key = answer.data.key as string | Uint8Array
      return `${answer.data.flags} 3 ${answer.data.algorithm} ${typeof key === 'string' ? key : base64(key)}`
    }
    default:
      return null
  }
}

/** How to ask: `checkingDisabled` sets CD, so a validating resolver answers without checking DNSSEC. */
export interface DohQueryOptions {
  checkingDisabled?: boolean
}

/** The query RFC 8484's GET carries: `?dns=` and the base64url DNS message (id 0, recursion desired). */
export function dohQueryUrl(
  resolverUrl: string,
  name: string,
  type: DnsLookupType,
  options: DohQueryOptions = {},
): URL {
  const flags = RECURSION_DESIRED | (options.checkingDisabled ? CHECKING_DISABLED : 0)
  const message = encode({ type: 'query', id: 0, flags, questions: [{ name, type }] })
  const url = new URL(resolverUrl)
  url.searchParams.set('dns', base64(message).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))
  return url
}

async function readBytes(response: Response): Promise<Uint8Array | null> {
  const body = response.body
  if (!body || Number(response.headers.get('content-length') ?? 0) > DOH_MAX_BYTES) {
    await body?.cancel()
    return null
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.byteLength
    if (size > DOH_MAX_BYTES) return null
    chunks.push(chunk)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function decodeAnswer(bytes: Uint8Array): Packet | null {
  try {
    return decode(bytes)
  } catch {
    return null
  }
}

/**
 * Looks `name`/`type` up with an RFC 8484 DNS-over-HTTPS resolver (`GET <resolver>?dns=..`, DNS wire format),
 * which every standard DoH server speaks.
 */
export async function dohLookup(
  resolverUrl: string,
  name: string,
  type: DnsLookupType,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  options: DohQueryOptions = {},
): Promise<DohResult> {
  const url = dohQueryUrl(resolverUrl, name, type, options)
  // The resolver is the operator's configuration, not an admin-set URL: the outbound rule does not apply to it.
  const answer = await fetchWithDeadline(url, { headers: { accept: DNS_MESSAGE } }, timeoutMs)
  if (!answer.answered) throw new DohError(`the DNS resolver ${url.origin} did not answer: ${answer.reason}`)
  const { response } = answer
  if (!response.ok) {
    await response.body?.cancel()
    throw new DohError(`the DNS resolver ${url.origin} answered HTTP ${response.status}`)
  }
  const bytes = await readBytes(response)
  const packet = bytes && decodeAnswer(bytes)
  if (packet?.type !== 'response') {
    throw new DohError(`the DNS resolver ${url.origin} sent a body that is not a DNS answer`)
  }
  const answers = (packet.answers ?? []).flatMap((record): DohAnswer[] => {
    const data = record.type === type ? presentation(record) : null
    return data === null ? [] : [{ name: record.name.replace(/\.$/, ''), data, ttl: record.ttl ?? 0 }]
  })
  return { status: toRcode(packet.rcode ?? 'NOERROR'), data: answers.map((a) => a.data), answers }
}

import {
  type Answer,
  CHECKING_DISABLED,
  decode,
  encode,
  RECURSION_AVAILABLE,
  RECURSION_DESIRED,
} from '@dnsquery/dns-packet'
import { DNS_MESSAGE, type DnsLookupType } from '../../src/outside/doh'

/**
 * The question an RFC 8484 GET asks (`?dns=<base64url message>`), its name without the final dot, and whether
 * the query set CD (checking disabled: answer without DNSSEC validation); null if none.
 */
export function dohQuestion(
  request: Request,
): { name: string; type: DnsLookupType; checkingDisabled: boolean } | null {
  const encoded = new URL(request.url).searchParams.get('dns')
  if (!encoded) return null
  const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'))
  const packet = decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
  const question = packet.questions?.[0]
  if (!question) return null
  return {
    name: question.name.replace(/\.$/, ''),
    type: question.type as DnsLookupType,
    checkingDisabled: ((packet.flags ?? 0) & CHECKING_DISABLED) !== 0,
  }
}

const bare = (name: string) => name.replace(/\.$/, '')
const unquoted = (text: string) =>
  [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'))
const bytesOfHex = (text: string) =>
  Uint8Array.from(text.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16))

/** A record's presentation text (as a zone file writes it) as the library's answer data. */
function answerOf(name: string, type: DnsLookupType, text: string, ttl: number): Answer {
  const base = { name, ttl, class: 'IN' as const }
  const fields = text.trim().split(/\s+/)
  switch (type) {
    case 'A':
    case 'AAAA':
      return { ...base, type, data: text }
    case 'CNAME':
    case 'NS':
      return { ...base, type, data: bare(text) }
    case 'MX':
      return { ...base, type, data: { preference: Number(fields[0]), exchange: bare(fields[1] ?? '') } }
    case 'TXT': {
      const strings = unquoted(text)
      return { ...base, type, data: strings.length ? strings : [text] }
    }
    case 'CAA':
      // `<flags> <tag> "<value>"` (RFC 8659 section 4.1.1)
      return {
        ...base,
        type,
        data: { flags: Number(fields[0]), tag: fields[1] ?? '', value: unquoted(text)[0] ?? '' },
      }
    case 'DS':
      return {
        ...base,
        type,
        data: {
          keyTag: Number(fields[0]),
          algorithm: Number(fields[1]),
          digestType: Number(fields[2]),
          digest: bytesOfHex(fields.slice(3).join('').toLowerCase()),
        },
      }
    case 'DNSKEY': {
      const key = Uint8Array.from(atob(fields.slice(3).join('')), (c) => c.charCodeAt(0))
      // The library's type says string; its codec writes (and reads) the key's bytes.
      return {
        ...base,
        type,
        data: { flags: Number(fields[0]), algorithm: Number(fields[2]), key: key as unknown as string },
      }
    }
  }
}

/**
 * An RFC 8484 answer (`application/dns-message`) with response code `status` and one record per `data` text, each
 * with `ttl`.
 */
export function dohAnswer(
  name: string,
  type: DnsLookupType,
  status: number,
  data: string[],
  ttl = 300,
): Response {
  const message = encode({
    type: 'response',
    id: 0,
    flags: RECURSION_DESIRED | RECURSION_AVAILABLE | status,
    questions: [{ name, type }],
    answers: data.map((text) => answerOf(name, type, text, ttl)),
  })
  return new Response(message, { headers: { 'content-type': DNS_MESSAGE } })
}

import { z } from '@hono/zod-openapi'
import { readJson } from './counterpart-body'
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
} as const
export type DnsLookupType = keyof typeof DNS_TYPE_CODES

/** DNS response codes a DoH JSON answer carries in `Status`. */
export const DNS_RCODES: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  5: 'REFUSED',
}

const AnswerSchema = z.object({
  name: z.string(),
  type: z.number().int(),
  TTL: z.number().optional(),
  data: z.string(),
})
const DohResponseSchema = z.object({ Status: z.number().int(), Answer: z.array(AnswerSchema).optional() })

export interface DohResult {
  /** The DNS response code (0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, ...). */
  status: number
  /** The `data` of each answer of the asked type, in the resolver's order. */
  data: string[]
}

/** The resolver did not give a usable answer (network, timeout, HTTP status or body). */
export class DohError extends Error {}

const DEFAULT_TIMEOUT_MS = 3000
// A DNS answer fits in 64 KiB on the wire; its JSON form is a few times that at most.
const DOH_MAX_BYTES = 256 * 1024

/** Looks `name`/`type` up with a DNS-over-HTTPS JSON resolver (`GET <resolver>?name=..&type=..`). */
export async function dohLookup(
  resolverUrl: string,
  name: string,
  type: DnsLookupType,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<DohResult> {
  const url = new URL(resolverUrl)
  url.searchParams.set('name', name)
  url.searchParams.set('type', type)
  // The resolver is the operator's configuration, not an admin-set URL: the outbound rule does not apply to it.
  const answer = await fetchWithDeadline(url, { headers: { accept: 'application/dns-json' } }, timeoutMs)
  if (!answer.answered) throw new DohError(`the DNS resolver ${url.origin} did not answer: ${answer.reason}`)
  const { response } = answer
  if (!response.ok) {
    await response.body?.cancel()
    throw new DohError(`the DNS resolver ${url.origin} answered HTTP ${response.status}`)
  }
  const parsed = DohResponseSchema.safeParse(await readJson(response, DOH_MAX_BYTES))
  if (!parsed.success) throw new DohError(`the DNS resolver ${url.origin} sent a body that is not DNS JSON`)
  const code = DNS_TYPE_CODES[type]
  return {
    status: parsed.data.Status,
    data: (parsed.data.Answer ?? []).filter((answer) => answer.type === code).map((answer) => answer.data),
  }
}

import { DNS_TYPE_CODES, type DnsLookupType } from '../../src/outside/doh'

/** The question a DoH JSON request asks (`GET <resolver>?name=..&type=..`), its name without the final dot. */
export function dohQuestion(request: Request): { name: string; type: DnsLookupType } {
  const url = new URL(request.url)
  const name = (url.searchParams.get('name') ?? '').replace(/\.$/, '')
  return { name, type: (url.searchParams.get('type') ?? 'A') as DnsLookupType }
}

/** A DNS-over-HTTPS JSON answer in Cloudflare's wire format. */
export function dohJsonResponse(name: string, type: DnsLookupType, status: number, data: string[]): Response {
  const code = DNS_TYPE_CODES[type]
  return Response.json(
    {
      Status: status,
      TC: false,
      RD: true,
      RA: true,
      AD: false,
      CD: false,
      Question: [{ name: `${name}.`, type: code }],
      ...(data.length
        ? { Answer: data.map((value) => ({ name: `${name}.`, type: code, TTL: 300, data: value })) }
        : {}),
    },
    { headers: { 'content-type': 'application/dns-json' } },
  )
}

import { DNS_TYPE_CODES, type DnsLookupType } from '../../src/outside/doh'
import { fakeOrigin } from '../helpers/outbound'

// A DNS-over-HTTPS JSON resolver in Cloudflare's wire format (`GET /dns-query?name=..&type=..` with
// `accept: application/dns-json`), answering from a table the test fills.

export const DOH_ORIGIN = 'https://cloudflare-dns.com'

interface Entry {
  status: number
  data: string[]
}

export class FakeDoh {
  private readonly entries = new Map<string, Entry>()
  /** Set to make every query fail with this HTTP status. */
  httpStatus: number | null = null

  /** Publishes `data` for name/type (NOERROR); `status` 3 answers NXDOMAIN. */
  set(name: string, type: DnsLookupType, data: string[], status = 0): this {
    this.entries.set(`${name.replace(/\.$/, '')}|${type}`, { status, data })
    return this
  }

  install(): this {
    fakeOrigin(DOH_ORIGIN, (request) => this.handle(request))
    return this
  }

  private handle(request: Request): Response {
    const url = new URL(request.url)
    if (url.pathname !== '/dns-query' || request.method !== 'GET')
      return new Response('Not Found', { status: 404 })
    if (
      request.headers.get('accept') !== 'application/dns-json' &&
      url.searchParams.get('ct') !== 'application/dns-json'
    ) {
      return new Response('Bad Request', { status: 400 })
    }
    if (this.httpStatus) return new Response('Service Unavailable', { status: this.httpStatus })
    const name = (url.searchParams.get('name') ?? '').replace(/\.$/, '')
    const type = (url.searchParams.get('type') ?? 'A') as DnsLookupType
    const code = DNS_TYPE_CODES[type]
    const entry = this.entries.get(`${name}|${type}`) ?? { status: 0, data: [] }
    return Response.json(
      {
        Status: entry.status,
        TC: false,
        RD: true,
        RA: true,
        AD: false,
        CD: false,
        Question: [{ name: `${name}.`, type: code }],
        ...(entry.data.length
          ? { Answer: entry.data.map((data) => ({ name: `${name}.`, type: code, TTL: 300, data })) }
          : {}),
      },
      { headers: { 'content-type': 'application/dns-json' } },
    )
  }
}

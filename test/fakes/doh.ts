import { DNS_MESSAGE, type DnsLookupType } from '../../src/outside/doh'
import { counterpartAddresses, fakeOrigin } from '../helpers/outbound'
import { dohAnswer, dohQuestion } from './doh-wire'

// An RFC 8484 DNS-over-HTTPS resolver (`GET /dns-query?dns=<base64url DNS message>` with
// `accept: application/dns-message`), answering from a table the test fills. A name the table does not hold
// answers nothing, except the host of a faked counterpart: its A and AAAA are public addresses, so the
// production send-time check lets requests to the fake through.

export const DOH_ORIGIN = 'https://cloudflare-dns.com'

interface Entry {
  status: number
  data: string[]
  ttl: number
}

export class FakeDoh {
  private readonly entries = new Map<string, Entry>()
  private readonly bogusZones = new Set<string>()
  /** Set to make every query fail with this HTTP status. */
  httpStatus: number | null = null
  /** How long every answer takes, in milliseconds: a slow resolver. */
  delayMs = 0

  /** Publishes `data` for name/type (NOERROR) with `ttl`; `status` 3 answers NXDOMAIN, 2 SERVFAIL. */
  set(name: string, type: DnsLookupType, data: string[], status = 0, ttl = 300): this {
    this.entries.set(`${name.replace(/\.$/, '')}|${type}`, { status, data, ttl })
    return this
  }

  /**
   * Makes `zone`'s signatures fail validation, as a validating resolver sees a zone whose DS does not match its
   * key: every query at or under it answers SERVFAIL, unless it sets CD (checking disabled), which gets the table.
   */
  bogus(zone: string): this {
    this.bogusZones.add(zone.replace(/\.$/, ''))
    return this
  }

  private validationFails(name: string): boolean {
    return [...this.bogusZones].some((zone) => name === zone || name.endsWith(`.${zone}`))
  }

  /** Answers the Worker's DoH queries to `origin` (the DOH_RESOLVER_URL origin) for the current test. */
  install(origin = DOH_ORIGIN): this {
    fakeOrigin(origin, (request) => this.handle(request))
    return this
  }

  private async handle(request: Request): Promise<Response> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs))
    const url = new URL(request.url)
    if (url.pathname !== '/dns-query' || request.method !== 'GET')
      return new Response('Not Found', { status: 404 })
    const question = dohQuestion(request)
    if (request.headers.get('accept') !== DNS_MESSAGE || !question) {
      return new Response('Bad Request', { status: 400 })
    }
    if (this.httpStatus) return new Response('Service Unavailable', { status: this.httpStatus })
    const { name, type, checkingDisabled } = question
    if (!checkingDisabled && this.validationFails(name)) return dohAnswer(name, type, 2, [])
    const entry = this.entries.get(`${name}|${type}`) ?? {
      status: 0,
      data: counterpartAddresses(name, type) ?? [],
      ttl: 300,
    }
    return dohAnswer(name, type, entry.status, entry.data, entry.ttl)
  }
}

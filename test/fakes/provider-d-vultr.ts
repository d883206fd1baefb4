import {
  apiPath,
  type DnsFake,
  type FakeOptions,
  type FakeRecord,
  type FakeZone,
  intParam,
  json,
  randomHex,
} from './dns-fake'

// Vultr API v2 wire format: `Authorization: Bearer <API key>`; cursor pagination through `meta.links.next`;
// resources wrapped by name (`domains`, `record`); errors as `{ error, status }`.
function failure(status: number, error: string, headers: Record<string, string> = {}) {
  return json({ error, status }, status, headers)
}

/** A fake of the Vultr API v2 (account, DNS domains and records) for provider_d. */
export function vultrFake(options: FakeOptions = {}): DnsFake & { outageRetryAfter: number | null } {
  const origin = options.origin ?? 'https://api.vultr.com'
  const basePath = options.basePath ?? '/v2'
  const token = options.token ?? randomHex(18).toUpperCase()
  const pageCap = options.pageCap ?? 2
  const zones: FakeZone[] = []
  const records: FakeRecord[] = []

  const fake = {
    origin,
    apiBaseUrl: `${origin}${basePath}`,
    token,
    zones,
    records,
    rateLimitRetryAfter: null as number | null,
    /** When set, every request is answered 503 with this Retry-After (seconds), as Vultr does in maintenance. */
    outageRetryAfter: null as number | null,
    addZone(name: string) {
      const zone = { id: name, name }
      zones.push(zone)
      return zone
    },
    async handle(request: Request): Promise<Response> {
      const path = apiPath(request, basePath)
      if (path === null) return failure(404, 'Invalid API path')
      if (fake.outageRetryAfter !== null) {
        return failure(503, 'Service temporarily unavailable.', {
          'retry-after': String(fake.outageRetryAfter),
        })
      }
      if (fake.rateLimitRetryAfter !== null) {
        return failure(429, 'Rate limit reached - please try your request again later.', {
          'retry-after': String(fake.rateLimitRetryAfter),
        })
      }
      if (request.headers.get('authorization') !== `Bearer ${token}`)
        return failure(401, 'Invalid API token.')
      const url = new URL(request.url)

      if (request.method === 'GET' && path === '/account') {
        return json({
          account: {
            name: 'Ops',
            email: 'ops@example.test',
            acls: ['dns'],
            balance: 0,
            pending_charges: 0,
            last_payment_date: '',
            last_payment_amount: 0,
          },
        })
      }
      if (request.method === 'GET' && path === '/domains') {
        const perPage = Math.min(intParam(url, 'per_page', 100), 500, pageCap)
        const cursor = url.searchParams.get('cursor')
        const start = cursor ? Number(atob(cursor).replace('next__', '')) : 0
        const slice = zones.slice(start, start + perPage)
        const end = start + slice.length
        return json({
          domains: slice.map((zone) => ({
            domain: zone.name,
            date_created: '2024-01-01T00:00:00+00:00',
            dns_sec: 'disabled',
          })),
          meta: {
            total: zones.length,
            links: {
              next: end < zones.length ? btoa(`next__${end}`) : '',
              prev: start > 0 ? btoa(`prev__${start}`) : '',
            },
          },
        })
      }
      const recordsPath = path.match(/^\/domains\/([^/]+)\/records(?:\/([^/]+))?$/)
      if (!recordsPath) return failure(404, 'Invalid API path')
      const [, domain, recordId] = recordsPath
      const zone = zones.find((z) => z.name === domain)
      if (!zone) return failure(404, 'Domain not found.')
      if (request.method === 'POST' && !recordId) {
        const body = (await request.json()) as { name: string; type: string; data: string; ttl: number }
        // Vultr wants TXT data between double quotes, with none inside.
        if (body.type === 'TXT' && !/^"[^"]*"$/.test(body.data)) {
          return failure(400, 'Unable to create record: TXT data must be enclosed in double quotes')
        }
        const record: FakeRecord = {
          id: crypto.randomUUID(),
          zoneId: zone.id,
          type: body.type,
          name: body.name,
          content: body.data,
          ttl: body.ttl,
        }
        records.push(record)
        return json(
          {
            record: {
              id: record.id,
              type: record.type,
              name: record.name,
              data: record.content,
              priority: -1,
              ttl: record.ttl,
            },
          },
          201,
        )
      }
      if (request.method === 'DELETE' && recordId) {
        const index = records.findIndex((r) => r.id === recordId && r.zoneId === zone.id)
        if (index < 0) return failure(404, 'Record not found.')
        records.splice(index, 1)
        return new Response(null, { status: 204 })
      }
      return failure(405, 'Method not allowed')
    },
  }
  return fake
}

import {
  apiPath,
  createAnswer,
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

function wireRecord(record: FakeRecord) {
  return {
    id: record.id,
    type: record.type,
    name: record.name,
    data: record.content,
    priority: -1,
    ttl: record.ttl,
  }
}

/** One page of a cursor-paged list: `per_page` items from the opaque `cursor` on, and the cursors around. */
function cursorPage<T>(items: T[], url: URL, pageCap: number) {
  const perPage = Math.min(intParam(url, 'per_page', 100), 500, pageCap)
  const cursor = url.searchParams.get('cursor')
  const start = cursor ? Number(atob(cursor).replace('next__', '')) : 0
  const slice = items.slice(start, start + perPage)
  const end = start + slice.length
  return {
    slice,
    meta: {
      total: items.length,
      links: {
        next: end < items.length ? btoa(`next__${end}`) : '',
        prev: start > 0 ? btoa(`prev__${start}`) : '',
      },
    },
  }
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
    loseNextCreateAnswer: false,
    addZone(name: string) {
      const zone = { id: name, name }
      zones.push(zone)
      return zone
    },
    addRecord(zone: FakeZone, record: Omit<FakeRecord, 'id' | 'zoneId'>) {
      const added = { id: crypto.randomUUID(), zoneId: zone.id, ...record }
      records.push(added)
      return added
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
        const { slice, meta } = cursorPage(zones, url, pageCap)
        return json({
          domains: slice.map((zone) => ({
            domain: zone.name,
            date_created: '2024-01-01T00:00:00+00:00',
            dns_sec: 'disabled',
          })),
          meta,
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
        const record = fake.addRecord(zone, {
          type: body.type,
          name: body.name,
          content: body.data,
          ttl: body.ttl,
        })
        return createAnswer(fake, json({ record: wireRecord(record) }, 201))
      }
      if (request.method === 'GET' && !recordId) {
        // Vultr takes no filter here: every record of the domain, relative names, empty at the apex.
        const { slice, meta } = cursorPage(
          records.filter((r) => r.zoneId === zone.id),
          url,
          pageCap,
        )
        return json({ records: slice.map(wireRecord), meta })
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

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

// Cloudflare API v4 wire format: every answer is the `{ success, errors, messages, result }` envelope; lists
// carry `result_info`; the token travels as `Authorization: Bearer`.
function envelope(result: unknown, extra: Record<string, unknown> = {}) {
  return { success: true, errors: [], messages: [], result, ...extra }
}

function failure(status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return json({ success: false, errors: [{ code, message }], messages: [], result: null }, status, headers)
}

/** Cloudflare's answer over its API rate limit (1,200 requests per 5 minutes per user): 429, code 971, Retry-After. */
export function cloudflareRateLimited(retryAfterSeconds: number): Response {
  return failure(429, 971, 'Please wait and consider throttling your request speed', {
    'retry-after': String(retryAfterSeconds),
  })
}

function wireRecord(record: FakeRecord, zone: FakeZone) {
  return {
    id: record.id,
    zone_id: zone.id,
    zone_name: zone.name,
    name: record.name,
    type: record.type,
    content: record.content,
    proxiable: record.type !== 'TXT',
    proxied: record.proxied ?? false,
    ttl: record.ttl,
    settings: {},
    meta: {},
    comment: null,
    tags: [],
    created_on: '2026-01-01T00:00:00.000000Z',
    modified_on: '2026-01-01T00:00:00.000000Z',
  }
}

// Cloudflare refuses a CNAME beside an A, AAAA or CNAME of the same name, and an A or AAAA beside a CNAME
// (81053, 81054; "Records with the same name" in its DNS troubleshooting docs).
function nameConflict(type: string, atName: FakeRecord[]): Response | null {
  if (type === 'CNAME' && atName.some((r) => ['A', 'AAAA', 'CNAME'].includes(r.type))) {
    return failure(400, 81053, 'An A, AAAA, or CNAME record with that host already exists.')
  }
  if ((type === 'A' || type === 'AAAA') && atName.some((r) => r.type === 'CNAME')) {
    return failure(400, 81054, 'A CNAME record with that host already exists.')
  }
  return null
}

export interface CloudflareFakeOptions extends FakeOptions {
  /** The token is an account API token, which GET /user/tokens/verify refuses like a wrong one (HTTP 401). */
  accountToken?: boolean
}

/** A fake of the Cloudflare API v4 (tokens/verify, zones, dns_records) for provider_a. */
export function cloudflareFake(options: CloudflareFakeOptions = {}): DnsFake & { tokenStatus: string } {
  const origin = options.origin ?? 'https://api.cloudflare.com'
  const basePath = options.basePath ?? '/client/v4'
  // Cloudflare API tokens are 40 characters of [A-Za-z0-9_-].
  const token = options.token ?? randomHex(20)
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
    loseNextCreateAnswer: false,
    tokenStatus: 'active',
    addZone(name: string) {
      const zone = { id: randomHex(16), name }
      zones.push(zone)
      return zone
    },
    addRecord(zone: FakeZone, record: Omit<FakeRecord, 'id' | 'zoneId'>) {
      const added = { id: randomHex(16), zoneId: zone.id, ...record }
      records.push(added)
      return added
    },
    async handle(request: Request): Promise<Response> {
      const path = apiPath(request, basePath)
      if (path === null) return failure(404, 7000, 'No route for that URI')
      if (fake.rateLimitRetryAfter !== null) return cloudflareRateLimited(fake.rateLimitRetryAfter)
      const auth = request.headers.get('authorization') ?? ''
      if (!/^Bearer [A-Za-z0-9_-]{40}$/.test(auth)) {
        return json(
          {
            success: false,
            errors: [
              {
                code: 6003,
                message: 'Invalid request headers',
                error_chain: [{ code: 6111, message: 'Invalid format for Authorization header' }],
              },
            ],
            messages: [],
            result: null,
          },
          400,
        )
      }
      if (auth !== `Bearer ${token}`) return failure(401, 1000, 'Invalid API Token')
      const url = new URL(request.url)

      if (request.method === 'GET' && path === '/user/tokens/verify') {
        if (options.accountToken) return failure(401, 1000, 'Invalid API Token')
        return json(
          envelope(
            { id: 'ed17574386854bf78a67040be0a770b0', status: fake.tokenStatus },
            {
              messages: [{ code: 10000, message: 'This API Token is valid and active', type: null }],
            },
          ),
        )
      }
      if (request.method === 'GET' && path === '/zones') {
        const perPage = Math.min(intParam(url, 'per_page', 20), 50, pageCap)
        const page = intParam(url, 'page', 1)
        const slice = zones.slice((page - 1) * perPage, page * perPage)
        return json(
          envelope(
            slice.map((zone) => ({
              id: zone.id,
              name: zone.name,
              status: 'active',
              paused: false,
              type: 'full',
            })),
            {
              result_info: {
                page,
                per_page: perPage,
                count: slice.length,
                total_count: zones.length,
                total_pages: Math.max(1, Math.ceil(zones.length / perPage)),
              },
            },
          ),
        )
      }
      const recordsPath = path.match(/^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/)
      if (!recordsPath) return failure(404, 7000, 'No route for that URI')
      const [, zoneId, recordId] = recordsPath
      const zone = zones.find((z) => z.id === zoneId)
      if (!zone) {
        return failure(
          404,
          7003,
          `Could not route to /zones/${zoneId}/dns_records, perhaps your object identifier is invalid?`,
        )
      }
      if (request.method === 'POST' && !recordId) {
        const body = (await request.json()) as {
          type: string
          name: string
          content: string
          ttl: number
          proxied?: boolean
        }
        if (body.name !== zone.name && !body.name.endsWith(`.${zone.name}`)) {
          return failure(400, 9005, 'Content for name must be inside the zone')
        }
        if (body.ttl !== 1 && (body.ttl < 60 || body.ttl > 86400)) {
          return failure(400, 9021, 'Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic.')
        }
        const atName = records.filter((r) => r.zoneId === zone.id && r.name === body.name)
        if (atName.some((r) => r.type === body.type && r.content === body.content)) {
          return failure(400, 81058, 'An identical record already exists.')
        }
        const conflict = nameConflict(body.type, atName)
        if (conflict) return conflict
        const record = fake.addRecord(zone, body)
        return createAnswer(fake, json(envelope(wireRecord(record, zone))))
      }
      if (request.method === 'GET' && !recordId) {
        // A plain `name` is an exact, case-insensitive match on the full name.
        const name = url.searchParams.get('name')?.toLowerCase()
        const found = records.filter((r) => r.zoneId === zone.id && (!name || r.name.toLowerCase() === name))
        const perPage = Math.min(intParam(url, 'per_page', 100), pageCap)
        const page = intParam(url, 'page', 1)
        const slice = found.slice((page - 1) * perPage, page * perPage)
        return json(
          envelope(
            slice.map((r) => wireRecord(r, zone)),
            {
              result_info: {
                page,
                per_page: perPage,
                count: slice.length,
                total_count: found.length,
                total_pages: Math.max(1, Math.ceil(found.length / perPage)),
              },
            },
          ),
        )
      }
      if (request.method === 'DELETE' && recordId) {
        const index = records.findIndex((r) => r.id === recordId && r.zoneId === zone.id)
        if (index < 0) return failure(404, 81044, 'Record does not exist.')
        records.splice(index, 1)
        return json(envelope({ id: recordId }))
      }
      return failure(405, 10405, 'Method not allowed for this route')
    },
  }
  return fake
}

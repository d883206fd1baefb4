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

// Hetzner DNS API wire format: the token in `Auth-API-Token`; `{ zones, meta: { pagination } }` lists;
// `{ record }` on create; the gateway answers auth and rate-limit failures with a bare `{ message }`, the API its
// own failures with `{ error: { message, code } }`.
function apiError(status: number, message: string) {
  return json({ error: { message, code: status } }, status)
}

/** A fake of the Hetzner DNS API (zones, records) for provider_c. */
export function hetznerFake(options: FakeOptions = {}): DnsFake {
  const origin = options.origin ?? 'https://dns.hetzner.com'
  const basePath = options.basePath ?? '/api/v1'
  const token = options.token ?? randomHex(16)
  const pageCap = options.pageCap ?? 2
  const zones: FakeZone[] = []
  const records: FakeRecord[] = []

  const fake: DnsFake = {
    origin,
    apiBaseUrl: `${origin}${basePath}`,
    token,
    zones,
    records,
    rateLimitRetryAfter: null,
    addZone(name) {
      const zone = { id: randomHex(11), name }
      zones.push(zone)
      return zone
    },
    async handle(request) {
      const path = apiPath(request, basePath)
      if (path === null) return json({ message: 'no Route matched with those values' }, 404)
      if (fake.rateLimitRetryAfter !== null) {
        return json({ message: 'API rate limit exceeded' }, 429, {
          'retry-after': String(fake.rateLimitRetryAfter),
          'x-ratelimit-limit-second': '3',
          'x-ratelimit-remaining-second': '0',
        })
      }
      const given = request.headers.get('auth-api-token')
      if (!given) return json({ message: 'No API key found in request' }, 401)
      if (given !== token) return json({ message: 'Invalid authentication credentials' }, 401)
      const url = new URL(request.url)

      if (request.method === 'GET' && path === '/zones') {
        const perPage = Math.min(intParam(url, 'per_page', 100), 100, pageCap)
        const page = intParam(url, 'page', 1)
        const last = Math.max(1, Math.ceil(zones.length / perPage))
        return json({
          zones: zones.slice((page - 1) * perPage, page * perPage).map((zone) => ({
            id: zone.id,
            name: zone.name,
            ttl: 86400,
            status: 'verified',
            paused: false,
            is_secondary_dns: false,
            records_count: records.filter((r) => r.zoneId === zone.id).length,
          })),
          meta: {
            pagination: {
              page,
              per_page: perPage,
              previous_page: page > 1 ? page - 1 : 1,
              next_page: page < last ? page + 1 : last,
              last_page: last,
              total_entries: zones.length,
            },
          },
        })
      }
      if (request.method === 'POST' && path === '/records') {
        const body = (await request.json()) as {
          zone_id: string
          type: string
          name: string
          value: string
          ttl?: number
        }
        const zone = zones.find((z) => z.id === body.zone_id)
        if (!zone) return apiError(404, 'zone not found')
        const record: FakeRecord = {
          id: randomHex(16),
          zoneId: zone.id,
          type: body.type,
          name: body.name,
          content: body.value,
          ttl: body.ttl ?? 86400,
        }
        records.push(record)
        const stamp = new Date().toISOString()
        return json({
          record: {
            id: record.id,
            type: record.type,
            name: record.name,
            value: record.content,
            zone_id: zone.id,
            ttl: record.ttl,
            created: stamp,
            modified: stamp,
          },
        })
      }
      const recordPath = path.match(/^\/records\/([^/]+)$/)
      if (request.method === 'DELETE' && recordPath) {
        const index = records.findIndex((r) => r.id === recordPath[1])
        if (index < 0) return apiError(404, 'record not found')
        records.splice(index, 1)
        return new Response(null, { status: 200 })
      }
      return json({ message: 'no Route matched with those values' }, 404)
    },
  }
  return fake
}

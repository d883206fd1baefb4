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

// Linode API v4 wire format: `Authorization: Bearer`; paged lists `{ data, page, pages, results }` driven by
// `page` and `page_size`; numeric ids; a record is answered unwrapped; errors as `{ errors: [{ reason, field? }] }`.
function failure(status: number, reason: string, headers: Record<string, string> = {}, field?: string) {
  return json({ errors: [{ reason, ...(field ? { field } : {}) }] }, status, headers)
}

function wireRecord(record: FakeRecord) {
  return {
    id: Number(record.id),
    type: record.type,
    name: record.name,
    target: record.content,
    priority: 0,
    weight: 0,
    port: 0,
    service: null,
    protocol: null,
    ttl_sec: record.ttl,
    tag: null,
    created: '2024-01-01T00:00:00',
    updated: '2024-01-01T00:00:00',
  }
}

/** One page of a paged list as Linode answers it, `page_size` capped by the fake. */
function paged<T>(all: T[], url: URL, pageCap: number) {
  const pageSize = Math.min(intParam(url, 'page_size', 100), 500, pageCap)
  const page = intParam(url, 'page', 1)
  return {
    data: all.slice((page - 1) * pageSize, page * pageSize),
    page,
    pages: Math.max(1, Math.ceil(all.length / pageSize)),
    results: all.length,
  }
}

/** A fake of the Linode API v4 (profile, domains, domain records) for provider_e. */
export function linodeFake(options: FakeOptions & { slaveZones?: string[] } = {}): DnsFake {
  const origin = options.origin ?? 'https://api.linode.com'
  const basePath = options.basePath ?? '/v4'
  const token = options.token ?? randomHex(32)
  const pageCap = options.pageCap ?? 2
  const zones: FakeZone[] = []
  const records: FakeRecord[] = []
  let nextDomainId = 1234
  let nextRecordId = 28_000

  const fake: DnsFake = {
    origin,
    apiBaseUrl: `${origin}${basePath}`,
    token,
    zones,
    records,
    rateLimitRetryAfter: null,
    loseNextCreateAnswer: false,
    addZone(name) {
      const zone = { id: String(nextDomainId++), name }
      zones.push(zone)
      return zone
    },
    addRecord(zone, record) {
      const added = { id: String(nextRecordId++), zoneId: zone.id, ...record }
      records.push(added)
      return added
    },
    async handle(request) {
      const path = apiPath(request, basePath)
      if (path === null) return failure(404, 'Not found')
      if (fake.rateLimitRetryAfter !== null) {
        return failure(429, 'Too Many Requests', { 'retry-after': String(fake.rateLimitRetryAfter) })
      }
      if (request.headers.get('authorization') !== `Bearer ${token}`) return failure(401, 'Invalid Token')
      const url = new URL(request.url)

      if (request.method === 'GET' && path === '/profile') {
        return json({ username: 'ops', email: 'ops@example.test', restricted: false, uid: 1001 })
      }
      if (request.method === 'GET' && path === '/domains') {
        const all = [
          ...zones.map((zone) => ({ id: Number(zone.id), domain: zone.name, type: 'master' })),
          ...(options.slaveZones ?? []).map((domain, i) => ({ id: 9000 + i, domain, type: 'slave' })),
        ]
        const page = paged(all, url, pageCap)
        return json({
          ...page,
          data: page.data.map((domain) => ({
            ...domain,
            status: 'active',
            soa_email: `admin@${domain.domain}`,
            ttl_sec: 300,
            tags: [],
          })),
        })
      }
      const recordsPath = path.match(/^\/domains\/([^/]+)\/records(?:\/([^/]+))?$/)
      if (!recordsPath) return failure(404, 'Not found')
      const [, domainId, recordId] = recordsPath
      const zone = zones.find((z) => z.id === domainId)
      if (!zone) return failure(404, 'Not found')
      if (request.method === 'POST' && !recordId) {
        const body = (await request.json()) as {
          type: string
          name: string
          target: string
          ttl_sec?: number
        }
        // As linode/ansible_linode#635 and kubernetes-sigs/external-dns#3924 quote Linode's answer.
        if (
          body.type === 'CNAME' &&
          records.some((r) => r.zoneId === zone.id && r.name === body.name && r.type === 'CNAME')
        ) {
          return failure(400, 'Record conflict - CNAMES must be unique', {}, 'name')
        }
        const record = fake.addRecord(zone, {
          type: body.type,
          name: body.name,
          content: body.target,
          ttl: body.ttl_sec ?? 0,
        })
        return createAnswer(fake, json(wireRecord(record)))
      }
      if (request.method === 'GET' && !recordId) {
        // No filter: every record of the domain, relative names, empty at the apex.
        const page = paged(
          records.filter((r) => r.zoneId === zone.id),
          url,
          pageCap,
        )
        return json({ ...page, data: page.data.map(wireRecord) })
      }
      if (request.method === 'DELETE' && recordId) {
        const index = records.findIndex((r) => r.id === recordId && r.zoneId === zone.id)
        if (index < 0) return failure(404, 'Not found')
        records.splice(index, 1)
        return json({})
      }
      return failure(405, 'Method Not Allowed')
    },
  }
  return fake
}

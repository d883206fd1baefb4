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

// DigitalOcean API v2 wire format: resources wrapped by name (`domains`, `domain_record`), `links.pages` with
// absolute URLs plus `meta.total` on lists, errors as `{ id, message }`, and `Authorization: Bearer`.
function relativeToZone(name: string, zone: string): string {
  if (!name.endsWith('.')) return name
  const absolute = name.slice(0, -1)
  if (absolute === zone) return '@'
  return absolute.endsWith(`.${zone}`) ? absolute.slice(0, -(zone.length + 1)) : absolute
}

function failure(status: number, id: string, message: string, headers: Record<string, string> = {}) {
  return json({ id, message }, status, headers)
}

function fqdn(name: string, zone: string): string {
  return name === '@' ? zone : `${name}.${zone}`
}

// A host name target is answered without its trailing dot (`@` stays as it is), as
// terraform-provider-digitalocean reads it back.
function wireRecord(record: FakeRecord) {
  const host = ['CNAME', 'MX', 'NS', 'SRV'].includes(record.type)
  return {
    id: Number(record.id),
    type: record.type,
    name: record.name,
    data: host && record.content.endsWith('.') ? record.content.slice(0, -1) : record.content,
    priority: null,
    port: null,
    ttl: record.ttl,
    weight: null,
    flags: null,
    tag: null,
  }
}

/** Links to the other pages of a list, as DigitalOcean gives them: absolute URLs, absent where none. */
function pageLinks(link: (page: number) => string, page: number, last: number): Record<string, string> {
  const pages: Record<string, string> = {}
  if (page > 1) Object.assign(pages, { first: link(1), prev: link(page - 1) })
  if (page < last) Object.assign(pages, { next: link(page + 1), last: link(last) })
  return pages
}

export interface DigitalOceanFakeOptions extends FakeOptions {
  /** The token is custom-scoped to DNS (`domain:*` only), so reading `/v2/account` (`account:read`) is refused. */
  dnsOnlyScope?: boolean
}

/** A fake of the DigitalOcean API v2 (account, domains, domain records) for provider_b. */
export function digitalOceanFake(options: DigitalOceanFakeOptions = {}): DnsFake {
  const origin = options.origin ?? 'https://api.digitalocean.com'
  const basePath = options.basePath ?? '/v2'
  const token = options.token ?? `dop_v1_${randomHex(32)}`
  const pageCap = options.pageCap ?? 2
  const zones: FakeZone[] = []
  const records: FakeRecord[] = []
  let nextRecordId = 3352892

  const fake: DnsFake = {
    origin,
    apiBaseUrl: `${origin}${basePath}`,
    token,
    zones,
    records,
    rateLimitRetryAfter: null,
    loseNextCreateAnswer: false,
    addZone(name) {
      const zone = { id: name, name }
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
      if (path === null)
        return failure(404, 'not_found', 'The resource you were accessing could not be found.')
      if (fake.rateLimitRetryAfter !== null) {
        return failure(429, 'too_many_requests', 'API Rate limit exceeded.', {
          'retry-after': String(fake.rateLimitRetryAfter),
          'ratelimit-limit': '5000',
          'ratelimit-remaining': '0',
        })
      }
      if (request.headers.get('authorization') !== `Bearer ${token}`) {
        return failure(401, 'Unauthorized', 'Unable to authenticate you')
      }
      const url = new URL(request.url)

      if (request.method === 'GET' && path === '/account') {
        if (options.dnsOnlyScope) {
          return failure(403, 'Forbidden', 'You are not authorized to perform this operation')
        }
        return json({
          account: {
            droplet_limit: 25,
            floating_ip_limit: 5,
            email: 'ops@example.test',
            uuid: 'b6fr89dbf6d9156cace5f3c78dc9851d957381ef',
            email_verified: true,
            status: 'active',
            status_message: '',
          },
        })
      }
      if (request.method === 'GET' && path === '/domains') {
        const perPage = Math.min(intParam(url, 'per_page', 20), 200, pageCap)
        const page = intParam(url, 'page', 1)
        const last = Math.max(1, Math.ceil(zones.length / perPage))
        const link = (p: number) => `${origin}${basePath}/domains?page=${p}&per_page=${perPage}`
        return json({
          domains: zones
            .slice((page - 1) * perPage, page * perPage)
            .map((zone) => ({ name: zone.name, ttl: 1800, zone_file: `$ORIGIN ${zone.name}.\n` })),
          links: { pages: pageLinks(link, page, last) },
          meta: { total: zones.length },
        })
      }
      const recordsPath = path.match(/^\/domains\/([^/]+)\/records(?:\/([^/]+))?$/)
      if (!recordsPath)
        return failure(404, 'not_found', 'The resource you were accessing could not be found.')
      const [, domain, recordId] = recordsPath
      const zone = zones.find((z) => z.name === domain)
      if (!zone) return failure(404, 'not_found', 'The resource you were accessing could not be found.')
      if (request.method === 'POST' && !recordId) {
        const body = (await request.json()) as { type: string; name: string; data: string; ttl: number }
        if (body.type === 'CNAME' && !body.data.endsWith('.')) {
          return failure(422, 'unprocessable_entity', 'Data needs to end with a dot (.)')
        }
        if (body.ttl < 30) return failure(422, 'unprocessable_entity', 'TTL must be at least 30 seconds')
        // A name with a trailing dot is absolute; DigitalOcean keeps it relative to the domain.
        const name = relativeToZone(body.name, zone.name)
        // As kubernetes-sigs/external-dns#4802 quotes DigitalOcean's answer.
        if (body.type === 'CNAME' && records.some((r) => r.zoneId === zone.id && r.name === name)) {
          return failure(422, 'unprocessable_entity', 'CNAME records cannot share a name with other records')
        }
        const record = fake.addRecord(zone, { type: body.type, name, content: body.data, ttl: body.ttl })
        return createAnswer(fake, json({ domain_record: wireRecord(record) }, 201))
      }
      if (request.method === 'GET' && !recordId) {
        // `name` is a fully qualified name; the records carry relative ones.
        const name = url.searchParams.get('name')?.toLowerCase()
        const found = records.filter(
          (r) => r.zoneId === zone.id && (!name || fqdn(r.name, zone.name).toLowerCase() === name),
        )
        const perPage = Math.min(intParam(url, 'per_page', 20), 200, pageCap)
        const page = intParam(url, 'page', 1)
        const last = Math.max(1, Math.ceil(found.length / perPage))
        const link = (p: number) => {
          const query = new URLSearchParams({
            ...(name ? { name } : {}),
            page: String(p),
            per_page: String(perPage),
          })
          return `${origin}${basePath}/domains/${zone.name}/records?${query}`
        }
        return json({
          domain_records: found.slice((page - 1) * perPage, page * perPage).map(wireRecord),
          links: { pages: pageLinks(link, page, last) },
          meta: { total: found.length },
        })
      }
      if (request.method === 'DELETE' && recordId) {
        const index = records.findIndex((r) => r.id === recordId && r.zoneId === zone.id)
        if (index < 0) return failure(404, 'not_found', 'The resource you were accessing could not be found.')
        records.splice(index, 1)
        return new Response(null, { status: 204 })
      }
      return failure(405, 'method_not_allowed', 'Method not allowed')
    },
  }
  return fake
}

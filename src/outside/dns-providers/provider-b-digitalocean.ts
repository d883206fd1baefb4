import { z } from 'zod'
import { foundRecord, type ListingForm, recordsAt } from './found'
import { apiRoot, deleteOrGone, parseBody, providerCaller } from './http'
import { absoluteTarget, assertNotProxied, bestZone, fqdnOf, normalizeDnsName, relativeName } from './records'
import type { DnsCapabilities, DnsDriver, DnsDriverOptions, DnsRecordFound, DnsZone } from './types'

export const DIGITALOCEAN_BASE_URL = 'https://api.digitalocean.com/v2'
export const digitalOceanCapabilities: DnsCapabilities = { proxy: false, delete: true, zoneKey: 'name' }

const PROVIDER = 'provider_b'
const PAGE_SIZE = 200
const MAX_PAGES = 200

// Names relative to the domain (`@` the apex); a CNAME target fully qualified without its dot, or `@`;
// TXT data as its text.
const LISTING: ListingForm = { targets: 'absolute', txt: (content) => content }

const ErrorSchema = z.object({ id: z.string(), message: z.string() })
const LinksSchema = z.object({ pages: z.object({ next: z.string().optional() }).optional() }).optional()
const DomainsSchema = z.object({ domains: z.array(z.object({ name: z.string() })), links: LinksSchema })
const RecordSchema = z.object({ domain_record: z.object({ id: z.number() }) })
const RecordsSchema = z.object({
  domain_records: z.array(
    z.object({ id: z.number(), type: z.string(), name: z.string(), data: z.string(), ttl: z.number() }),
  ),
  links: LinksSchema,
})

function errorMessage(body: unknown): string | undefined {
  const parsed = ErrorSchema.safeParse(body)
  return parsed.success ? `${parsed.data.id}: ${parsed.data.message}` : undefined
}

// The API hands back an absolute `next` link; only its page number is taken, so the token is never sent to a
// host other than the configured API root.
function nextPage(next: string | undefined): number | undefined {
  if (!next) return undefined
  try {
    const page = Number(new URL(next).searchParams.get('page'))
    return Number.isInteger(page) && page > 0 ? page : undefined
  } catch {
    return undefined
  }
}

/** provider_b: the DigitalOcean API v2 domains and records, with a Bearer token; zones keyed by domain name. */
export function digitalOceanDriver(options: DnsDriverOptions): DnsDriver {
  const baseUrl = apiRoot(DIGITALOCEAN_BASE_URL, options.apiBaseUrl)
  const call = providerCaller({
    provider: PROVIDER,
    baseUrl,
    timeoutMs: options.timeoutMs,
    headers: { authorization: `Bearer ${options.token}` },
    withheld: [options.token],
    errorMessage,
  })

  const listZones = async (): Promise<DnsZone[]> => {
    const zones: DnsZone[] = []
    let page: number | undefined = 1
    for (let fetched = 0; page !== undefined && fetched < MAX_PAGES; fetched++) {
      const { body } = await call(`/domains?page=${page}&per_page=${PAGE_SIZE}`)
      const parsed = parseBody(PROVIDER, DomainsSchema, body)
      for (const domain of parsed.domains) {
        const name = normalizeDnsName(domain.name)
        zones.push({ id: name, name })
      }
      const next = nextPage(parsed.links?.pages?.next)
      page = next !== undefined && next > page ? next : undefined
    }
    return zones
  }

  return {
    provider: PROVIDER,
    capabilities: digitalOceanCapabilities,
    async verify() {
      // A custom-scoped token made for DNS (domain:read/create/delete) cannot read /v2/account; the domain
      // listing needs exactly the scope the panel uses.
      const { body } = await call('/domains?page=1&per_page=1')
      parseBody(PROVIDER, DomainsSchema, body)
      return 'DigitalOcean accepted the token (GET /v2/domains)'
    },
    listZones,
    findZone: async (hostname) => bestZone(await listZones(), hostname),
    async listRecords(zone, name) {
      const found: DnsRecordFound[] = []
      const records = `/domains/${encodeURIComponent(zone.name)}/records`
      let page: number | undefined = 1
      for (let fetched = 0; page !== undefined && fetched < MAX_PAGES; fetched++) {
        // The filter takes the fully qualified name; the records come back with relative ones.
        const query = new URLSearchParams({
          name: normalizeDnsName(name),
          page: String(page),
          per_page: String(PAGE_SIZE),
        })
        const parsed = parseBody(PROVIDER, RecordsSchema, (await call(`${records}?${query}`)).body)
        for (const record of parsed.domain_records) {
          found.push(
            foundRecord(zone.name, LISTING, {
              recordId: String(record.id),
              type: record.type,
              name: fqdnOf(record.name, zone.name),
              content: record.data,
              ttl: record.ttl,
            }),
          )
        }
        const next = nextPage(parsed.links?.pages?.next)
        page = next !== undefined && next > page ? next : undefined
      }
      return recordsAt(found, name)
    },
    async createRecord(zone, record) {
      assertNotProxied(PROVIDER, record)
      const { body } = await call(`/domains/${encodeURIComponent(zone.name)}/records`, 'POST', {
        type: record.type,
        name: relativeName(PROVIDER, record.name, zone.name, '@'),
        data: record.type === 'CNAME' ? absoluteTarget(record.content) : record.content,
        ttl: record.ttl,
      })
      const { id } = parseBody(PROVIDER, RecordSchema, body).domain_record
      return { zoneId: zone.name, zoneName: zone.name, recordId: String(id) }
    },
    deleteRecord: (ref) =>
      deleteOrGone(() =>
        call(
          `/domains/${encodeURIComponent(ref.zoneName)}/records/${encodeURIComponent(ref.recordId)}`,
          'DELETE',
        ),
      ),
  }
}

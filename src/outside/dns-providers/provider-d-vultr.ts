import { z } from 'zod'
import { foundRecord, type ListingForm, recordsAt } from './found'
import { apiRoot, deleteOrGone, parseBody, providerCaller } from './http'
import { assertNotProxied, bestZone, fqdnOf, normalizeDnsName, relativeName } from './records'
import {
  type DnsCapabilities,
  type DnsDriver,
  type DnsDriverOptions,
  DnsProviderError,
  type DnsRecordFound,
  type DnsZone,
} from './types'

export const VULTR_BASE_URL = 'https://api.vultr.com/v2'
export const vultrCapabilities: DnsCapabilities = { proxy: false, delete: true, zoneKey: 'name' }

const PROVIDER = 'provider_d'
const PAGE_SIZE = 500
const MAX_PAGES = 200

const ErrorSchema = z.object({ error: z.string() })
const MetaSchema = z.object({ links: z.object({ next: z.string() }).optional() }).optional()
const DomainsSchema = z.object({ domains: z.array(z.object({ domain: z.string() })), meta: MetaSchema })
const RecordSchema = z.object({ record: z.object({ id: z.string() }) })
const RecordsSchema = z.object({
  records: z.array(
    z.object({ id: z.string(), type: z.string(), name: z.string(), data: z.string(), ttl: z.number() }),
  ),
  meta: MetaSchema,
})

function errorMessage(body: unknown): string | undefined {
  const parsed = ErrorSchema.safeParse(body)
  return parsed.success && parsed.data.error ? parsed.data.error : undefined
}

// Vultr wants TXT data wrapped in double quotes and allows none inside.
function quotedTxt(content: string): string {
  if (content.includes('"')) {
    throw new DnsProviderError(PROVIDER, 'invalid', 'Vultr does not accept a double quote inside TXT data')
  }
  return `"${content}"`
}

// Names relative to the domain (empty at the apex); a CNAME target fully qualified without its dot; TXT data
// between the double quotes quotedTxt puts around it, with no escapes inside.
const LISTING: ListingForm = {
  targets: 'absolute',
  txt: (data) => (data.length >= 2 && data.startsWith('"') && data.endsWith('"') ? data.slice(1, -1) : data),
}

/** provider_d: the Vultr API v2 domains and records, with a Bearer API key; zones keyed by domain name. */
export function vultrDriver(options: DnsDriverOptions): DnsDriver {
  const baseUrl = apiRoot(VULTR_BASE_URL, options.apiBaseUrl)
  const call = providerCaller({
    provider: PROVIDER,
    baseUrl,
    timeoutMs: options.timeoutMs,
    headers: { authorization: `Bearer ${options.token}` },
    withheld: [options.token],
    errorMessage,
  })

  // Every page of a cursor-paged list, each parsed and handed to `take`.
  const eachPage = async <T extends { meta?: z.infer<typeof MetaSchema> }>(
    path: string,
    schema: z.ZodType<T>,
    take: (page: T) => void,
  ) => {
    let cursor = ''
    for (let fetched = 0; fetched < MAX_PAGES; fetched++) {
      const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const parsed = parseBody(PROVIDER, schema, (await call(`${path}?per_page=${PAGE_SIZE}${query}`)).body)
      take(parsed)
      cursor = parsed.meta?.links?.next ?? ''
      if (!cursor) break
    }
  }

  const listZones = async (): Promise<DnsZone[]> => {
    const zones: DnsZone[] = []
    await eachPage('/domains', DomainsSchema, (page) => {
      for (const domain of page.domains) {
        const name = normalizeDnsName(domain.domain)
        zones.push({ id: name, name })
      }
    })
    return zones
  }

  return {
    provider: PROVIDER,
    capabilities: vultrCapabilities,
    async verify() {
      // A sub-user's key limited to DNS may not read /v2/account; the domain listing needs only what the panel uses.
      const { body } = await call('/domains?per_page=1')
      parseBody(PROVIDER, DomainsSchema, body)
      return 'Vultr accepted the API key (GET /v2/domains)'
    },
    listZones,
    findZone: async (hostname) => bestZone(await listZones(), hostname),
    async listRecords(zone, name) {
      // Vultr filters records by nothing: the whole domain is read and the name picked out here.
      const found: DnsRecordFound[] = []
      await eachPage(`/domains/${encodeURIComponent(zone.name)}/records`, RecordsSchema, (page) => {
        for (const record of page.records) {
          found.push(
            foundRecord(zone.name, LISTING, {
              recordId: record.id,
              type: record.type,
              name: fqdnOf(record.name, zone.name),
              content: record.data,
              ttl: record.ttl,
            }),
          )
        }
      })
      return recordsAt(found, name)
    },
    async createRecord(zone, record) {
      assertNotProxied(PROVIDER, record)
      const { body } = await call(`/domains/${encodeURIComponent(zone.name)}/records`, 'POST', {
        name: relativeName(PROVIDER, record.name, zone.name, ''),
        type: record.type,
        data: record.type === 'TXT' ? quotedTxt(record.content) : record.content,
        ttl: record.ttl,
      })
      const { id } = parseBody(PROVIDER, RecordSchema, body).record
      return { zoneId: zone.name, zoneName: zone.name, recordId: id }
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

import { z } from 'zod'
import { foundRecord, type ListingForm, recordsAt } from './found'
import { apiRoot, deleteOrGone, parseBody, providerCaller } from './http'
import { assertNotProxied, bestZone, fqdnOf, normalizeDnsName, relativeName } from './records'
import type { DnsCapabilities, DnsDriver, DnsDriverOptions, DnsRecordFound, DnsZone } from './types'

export const LINODE_BASE_URL = 'https://api.linode.com/v4'
export const linodeCapabilities: DnsCapabilities = { proxy: false, delete: true, zoneKey: 'id' }

const PROVIDER = 'provider_e'
const PAGE_SIZE = 500
const MAX_PAGES = 200
// Names relative to the domain (empty at the apex); a CNAME target fully qualified without its dot;
// TXT targets as their text.
const LISTING: ListingForm = { targets: 'absolute', txt: (target) => target }

const ErrorSchema = z.object({
  errors: z.array(z.object({ reason: z.string(), field: z.string().optional() })),
})
const ProfileSchema = z.object({ username: z.string() })
const PagedSchema = z.object({ page: z.number(), pages: z.number() })
const DomainsSchema = PagedSchema.extend({
  data: z.array(z.object({ id: z.number(), domain: z.string(), type: z.string() })),
})
const RecordSchema = z.object({ id: z.number() })
const RecordsSchema = PagedSchema.extend({
  data: z.array(
    // ttl_sec 0: the domain's default TTL.
    z.object({ id: z.number(), type: z.string(), name: z.string(), target: z.string(), ttl_sec: z.number() }),
  ),
})

function errorMessage(body: unknown): string | undefined {
  const parsed = ErrorSchema.safeParse(body)
  if (!parsed.success || parsed.data.errors.length === 0) return undefined
  return parsed.data.errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; ')
}

/** provider_e: the Linode (Akamai) API v4 domains and records, with a Bearer token; zones by numeric id. */
export function linodeDriver(options: DnsDriverOptions): DnsDriver {
  const baseUrl = apiRoot(LINODE_BASE_URL, options.apiBaseUrl)
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
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { body } = await call(`/domains?page=${page}&page_size=${PAGE_SIZE}`)
      const parsed = parseBody(PROVIDER, DomainsSchema, body)
      // A slave domain is transferred from elsewhere and takes no records through the API.
      for (const domain of parsed.data.filter((d) => d.type === 'master')) {
        zones.push({ id: String(domain.id), name: normalizeDnsName(domain.domain) })
      }
      if (parsed.page >= parsed.pages || parsed.data.length === 0) break
    }
    return zones
  }

  return {
    provider: PROVIDER,
    capabilities: linodeCapabilities,
    async verify() {
      const { body } = await call('/profile')
      parseBody(PROVIDER, ProfileSchema, body)
      return 'Linode accepted the token (GET /v4/profile)'
    },
    listZones,
    findZone: async (hostname) => bestZone(await listZones(), hostname),
    async listRecords(zone, name) {
      // Records are read for the whole domain and the name picked out here.
      const found: DnsRecordFound[] = []
      for (let page = 1; page <= MAX_PAGES; page++) {
        const path = `/domains/${encodeURIComponent(zone.id)}/records?page=${page}&page_size=${PAGE_SIZE}`
        const parsed = parseBody(PROVIDER, RecordsSchema, (await call(path)).body)
        for (const record of parsed.data) {
          found.push(
            foundRecord(zone.name, LISTING, {
              recordId: String(record.id),
              type: record.type,
              name: fqdnOf(record.name, zone.name),
              content: record.target,
              ttl: record.ttl_sec,
            }),
          )
        }
        if (parsed.page >= parsed.pages || parsed.data.length === 0) break
      }
      return recordsAt(found, name)
    },
    async createRecord(zone, record) {
      assertNotProxied(PROVIDER, record)
      const { body } = await call(`/domains/${encodeURIComponent(zone.id)}/records`, 'POST', {
        type: record.type,
        name: relativeName(PROVIDER, record.name, zone.name, ''),
        target: record.content,
        ttl_sec: record.ttl,
      })
      const { id } = parseBody(PROVIDER, RecordSchema, body)
      return { zoneId: zone.id, zoneName: zone.name, recordId: String(id) }
    },
    deleteRecord: (ref) =>
      deleteOrGone(() =>
        call(
          `/domains/${encodeURIComponent(ref.zoneId)}/records/${encodeURIComponent(ref.recordId)}`,
          'DELETE',
        ),
      ),
  }
}

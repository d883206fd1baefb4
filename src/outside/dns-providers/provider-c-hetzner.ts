import { z } from 'zod'
import { apiRoot, deleteOrGone, parseBody, providerCaller } from './http'
import { absoluteTarget, assertNotProxied, bestZone, normalizeDnsName, relativeName } from './records'
import type { DnsCapabilities, DnsDriver, DnsDriverOptions, DnsZone } from './types'

export const HETZNER_BASE_URL = 'https://dns.hetzner.com/api/v1'
export const hetznerCapabilities: DnsCapabilities = { proxy: false, delete: true, zoneKey: 'id' }

const PROVIDER = 'provider_c'
const PAGE_SIZE = 100
const MAX_PAGES = 200

// Errors come either as the gateway's `{ message }` or as the API's `{ error: { message, code } }`.
const ErrorSchema = z.union([
  z.object({ error: z.object({ message: z.string() }) }),
  z.object({ message: z.string() }),
])
const ZonesSchema = z.object({
  zones: z.array(z.object({ id: z.string(), name: z.string() })),
  meta: z.object({ pagination: z.object({ page: z.number(), last_page: z.number() }) }).optional(),
})
const RecordSchema = z.object({ record: z.object({ id: z.string() }) })

function errorMessage(body: unknown): string | undefined {
  const parsed = ErrorSchema.safeParse(body)
  if (!parsed.success) return undefined
  return 'error' in parsed.data ? parsed.data.error.message : parsed.data.message
}

/** provider_c: the Hetzner DNS API with the `Auth-API-Token` header; zones by id. */
export function hetznerDriver(options: DnsDriverOptions): DnsDriver {
  const baseUrl = apiRoot(HETZNER_BASE_URL, options.apiBaseUrl)
  const call = providerCaller({
    provider: PROVIDER,
    baseUrl,
    timeoutMs: options.timeoutMs,
    headers: { 'auth-api-token': options.token },
    errorMessage,
  })

  const zonesPage = async (page: number, perPage: number) => {
    const { body } = await call(`/zones?page=${page}&per_page=${perPage}`)
    return parseBody(PROVIDER, ZonesSchema, body)
  }

  const listZones = async (): Promise<DnsZone[]> => {
    const zones: DnsZone[] = []
    for (let page = 1; page <= MAX_PAGES; page++) {
      const parsed = await zonesPage(page, PAGE_SIZE)
      zones.push(...parsed.zones.map((zone) => ({ id: zone.id, name: normalizeDnsName(zone.name) })))
      const last = parsed.meta?.pagination.last_page ?? page
      if (page >= last || parsed.zones.length === 0) break
    }
    return zones
  }

  return {
    provider: PROVIDER,
    capabilities: hetznerCapabilities,
    async verify() {
      // The DNS API has no token-info endpoint; the cheapest authenticated read stands in for one.
      await zonesPage(1, 1)
      return 'Hetzner DNS accepted the token (GET /api/v1/zones)'
    },
    listZones,
    findZone: async (hostname) => bestZone(await listZones(), hostname),
    async createRecord(zone, record) {
      assertNotProxied(PROVIDER, record)
      const { body } = await call('/records', 'POST', {
        zone_id: zone.id,
        type: record.type,
        name: relativeName(PROVIDER, record.name, zone.name, '@'),
        value: record.type === 'CNAME' ? absoluteTarget(record.content) : record.content,
        ttl: record.ttl,
      })
      const { id } = parseBody(PROVIDER, RecordSchema, body).record
      return { zoneId: zone.id, zoneName: zone.name, recordId: id }
    },
    deleteRecord: (ref) => deleteOrGone(() => call(`/records/${encodeURIComponent(ref.recordId)}`, 'DELETE')),
  }
}

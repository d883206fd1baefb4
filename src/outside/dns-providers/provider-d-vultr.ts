import { z } from 'zod'
import { apiRoot, deleteOrGone, parseBody, providerCaller } from './http'
import { assertNotProxied, bestZone, normalizeDnsName, relativeName } from './records'
import {
  type DnsCapabilities,
  type DnsDriver,
  type DnsDriverOptions,
  DnsProviderError,
  type DnsZone,
} from './types'

export const VULTR_BASE_URL = 'https://api.vultr.com/v2'
export const vultrCapabilities: DnsCapabilities = { proxy: false, delete: true, zoneKey: 'name' }

const PROVIDER = 'provider_d'
const PAGE_SIZE = 500
const MAX_PAGES = 200

const ErrorSchema = z.object({ error: z.string() })
const DomainsSchema = z.object({
  domains: z.array(z.object({ domain: z.string() })),
  meta: z.object({ links: z.object({ next: z.string() }).optional() }).optional(),
})
const RecordSchema = z.object({ record: z.object({ id: z.string() }) })

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

  const listZones = async (): Promise<DnsZone[]> => {
    const zones: DnsZone[] = []
    let cursor = ''
    for (let fetched = 0; fetched < MAX_PAGES; fetched++) {
      const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const { body } = await call(`/domains?per_page=${PAGE_SIZE}${query}`)
      const parsed = parseBody(PROVIDER, DomainsSchema, body)
      for (const domain of parsed.domains) {
        const name = normalizeDnsName(domain.domain)
        zones.push({ id: name, name })
      }
      cursor = parsed.meta?.links?.next ?? ''
      if (!cursor) break
    }
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

import { z } from 'zod'
import { quotableText } from '../counterpart-text'
import { quoteTxt, txtText } from '../txt-strings'
import { foundRecord, type ListingForm, recordsAt } from './found'
import { apiRoot, deleteOrGone, type ProviderCall, parseBody, providerCaller } from './http'
import { absoluteTarget, assertNotProxied, bestZone, fqdnOf, normalizeDnsName, relativeName } from './records'
import {
  type DnsCapabilities,
  type DnsDriver,
  type DnsDriverOptions,
  DnsProviderError,
  type DnsProviderErrorKind,
  type DnsRecordFound,
  type DnsRecordRef,
  type DnsZone,
} from './types'

export const HETZNER_BASE_URL = 'https://api.hetzner.cloud/v1'
export const hetznerCapabilities: DnsCapabilities = { proxy: false, delete: true, zoneKey: 'id' }

const PROVIDER = 'provider_c'
// Cloud API lists default to 25 entries a page and take up to 50.
const PAGE_SIZE = 50
const MAX_PAGES = 200
// Record changes are actions that run after the answer; these are the pauses between looks at one (about 10 s).
const ACTION_POLL_MS = [250, 500, 1000, 1000, 1000, 2000, 2000, 2000]
// A Hetzner Cloud API token is 64 letters and digits; the retired DNS console's tokens were 32.
const CLOUD_TOKEN = /^[A-Za-z0-9]{64}$/
const OLD_TOKEN_ADVICE =
  'provider_c speaks the Hetzner Cloud API, which does not take tokens of the retired DNS console ' +
  '(dns.hetzner.com): create an API token with Read & Write permission in the Hetzner Console project that ' +
  'holds the zones, and save it on this account'

// Values are zone-file text: a target without its final dot is relative to the zone, TXT is quoted strings.
const LISTING: ListingForm = { targets: 'zone-file', txt: txtText }

const KINDS: Record<string, DnsProviderErrorKind> = {
  unauthorized: 'auth',
  forbidden: 'auth',
  token_readonly: 'auth',
  not_found: 'not_found',
  rate_limit_exceeded: 'rate_limited',
  invalid_input: 'invalid',
  uniqueness_error: 'invalid',
  incorrect_zone_mode: 'invalid',
  protected: 'invalid',
  locked: 'unavailable',
  conflict: 'unavailable',
  maintenance: 'unavailable',
}

const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) })
const MetaSchema = z
  .object({ pagination: z.object({ page: z.number(), next_page: z.number().nullable().optional() }) })
  .optional()
const ZonesSchema = z.object({
  zones: z.array(z.object({ id: z.number(), name: z.string() })),
  meta: MetaSchema,
})
const RRSetsSchema = z.object({
  rrsets: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      // null: the zone's default TTL.
      ttl: z.number().nullable(),
      records: z.array(z.object({ value: z.string() })),
    }),
  ),
  meta: MetaSchema,
})
const ActionSchema = z.object({
  action: z.object({
    id: z.number(),
    status: z.string(),
    error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  }),
})
type Action = z.infer<typeof ActionSchema>['action']

function errorMessage(body: unknown): string | undefined {
  const parsed = ErrorSchema.safeParse(body)
  return parsed.success ? `${parsed.data.error.message} (${parsed.data.error.code})` : undefined
}

function errorKind(_status: number, body: unknown): DnsProviderErrorKind | undefined {
  const parsed = ErrorSchema.safeParse(body)
  return parsed.success ? KINDS[parsed.data.error.code] : undefined
}

// The Cloud API has no record ids: a record is its RRSet (relative name and type) plus its value.
function recordId(name: string, type: string, value: string): string {
  return `${name}/${type}/${value}`
}

function parseRecordId(ref: DnsRecordRef): { name: string; type: string; value: string } {
  const match = ref.recordId.match(/^([^/]+)\/([A-Z]+)\/(.*)$/s)
  if (!match?.[1] || !match[2] || match[3] === undefined) {
    throw new DnsProviderError(PROVIDER, 'invalid', `${ref.recordId} is not a Hetzner Cloud record reference`)
  }
  return { name: match[1], type: match[2], value: match[3] }
}

function rrsetPath(zoneId: string, name: string, type: string): string {
  // `@` (the apex) goes as it is, the way the API's own clients send it.
  const label = encodeURIComponent(name).replaceAll('%40', '@')
  return `/zones/${encodeURIComponent(zoneId)}/rrsets/${label}/${encodeURIComponent(type)}`
}

/** Waits for a record action to finish; its failure is the provider refusing the change. */
async function settle(call: ProviderCall, token: string, first: Action): Promise<void> {
  let action = first
  for (const pause of [...ACTION_POLL_MS, null]) {
    if (action.status === 'success') return
    if (action.status === 'error') {
      const said = action.error ? quotableText(action.error.message, [token]) : null
      throw new DnsProviderError(
        PROVIDER,
        'invalid',
        `Hetzner Cloud could not apply the change (action ${action.id}${said ? `: ${said}` : ''})`,
      )
    }
    if (pause === null) break
    await new Promise((resolve) => setTimeout(resolve, pause))
    action = parseBody(PROVIDER, ActionSchema, (await call(`/actions/${action.id}`)).body).action
  }
  throw new DnsProviderError(
    PROVIDER,
    'unavailable',
    `Hetzner Cloud had not finished the change after ${ACTION_POLL_MS.reduce((a, b) => a + b) / 1000} s (action ${action.id})`,
  )
}

/** provider_c: the Hetzner Cloud API's DNS (zones, RRSets and their actions) with a Bearer token; zones by id. */
export function hetznerDriver(options: DnsDriverOptions): DnsDriver {
  const baseUrl = apiRoot(HETZNER_BASE_URL, options.apiBaseUrl)
  const call = providerCaller({
    provider: PROVIDER,
    baseUrl,
    timeoutMs: options.timeoutMs,
    headers: { authorization: `Bearer ${options.token}` },
    withheld: [options.token],
    authAdvice: CLOUD_TOKEN.test(options.token) ? undefined : OLD_TOKEN_ADVICE,
    errorMessage,
    errorKind,
  })

  const zonesPage = async (page: number, perPage: number) => {
    const { body } = await call(`/zones?page=${page}&per_page=${perPage}`)
    return parseBody(PROVIDER, ZonesSchema, body)
  }

  const listZones = async (): Promise<DnsZone[]> => {
    const zones: DnsZone[] = []
    let page: number | null | undefined = 1
    for (let fetched = 0; typeof page === 'number' && fetched < MAX_PAGES; fetched++) {
      const parsed = await zonesPage(page, PAGE_SIZE)
      zones.push(...parsed.zones.map((zone) => ({ id: String(zone.id), name: normalizeDnsName(zone.name) })))
      const next = parsed.meta?.pagination.next_page
      page = parsed.zones.length > 0 && typeof next === 'number' && next > page ? next : null
    }
    return zones
  }

  const change = async (path: string, body: unknown) => {
    const answer = await call(path, 'POST', body)
    await settle(call, options.token, parseBody(PROVIDER, ActionSchema, answer.body).action)
  }

  return {
    provider: PROVIDER,
    capabilities: hetznerCapabilities,
    async verify() {
      // The Cloud API has no token-info endpoint; the cheapest read of what the panel uses stands in for one.
      await zonesPage(1, 1)
      return 'Hetzner Cloud accepted the token (GET /v1/zones)'
    },
    listZones,
    findZone: async (hostname) => bestZone(await listZones(), hostname),
    async listRecords(zone, name) {
      const found: DnsRecordFound[] = []
      const rrsets = `/zones/${encodeURIComponent(zone.id)}/rrsets`
      const label = relativeName(PROVIDER, name, zone.name, '@')
      let page: number | null | undefined = 1
      for (let fetched = 0; typeof page === 'number' && fetched < MAX_PAGES; fetched++) {
        const query = new URLSearchParams({ name: label, page: String(page), per_page: String(PAGE_SIZE) })
        const { body } = await call(`${rrsets}?${query}`)
        const parsed = parseBody(PROVIDER, RRSetsSchema, body)
        for (const rrset of parsed.rrsets) {
          for (const { value } of rrset.records) {
            found.push(
              foundRecord(zone.name, LISTING, {
                recordId: recordId(rrset.name, rrset.type, value),
                type: rrset.type,
                name: fqdnOf(rrset.name, zone.name),
                content: value,
                ttl: rrset.ttl ?? 0,
              }),
            )
          }
        }
        const next = parsed.meta?.pagination.next_page
        page = parsed.rrsets.length > 0 && typeof next === 'number' && next > page ? next : null
      }
      return recordsAt(found, name)
    },
    async createRecord(zone, record) {
      assertNotProxied(PROVIDER, record)
      const name = relativeName(PROVIDER, record.name, zone.name, '@')
      const value =
        record.type === 'TXT'
          ? quoteTxt(record.content)
          : record.type === 'CNAME'
            ? absoluteTarget(record.content)
            : record.content
      await change(`${rrsetPath(zone.id, name, record.type)}/actions/add_records`, {
        ttl: record.ttl,
        records: [{ value }],
      })
      return { zoneId: zone.id, zoneName: zone.name, recordId: recordId(name, record.type, value) }
    },
    deleteRecord: async (ref) => {
      const { name, type, value } = parseRecordId(ref)
      return deleteOrGone(() =>
        change(`${rrsetPath(ref.zoneId, name, type)}/actions/remove_records`, { records: [{ value }] }),
      )
    },
  }
}

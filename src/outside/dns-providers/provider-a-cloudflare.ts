import { z } from 'zod'
import { quotableText } from '../counterpart-text'
import { quoteTxt, txtText } from '../txt-strings'
import { foundRecord, type ListingForm, recordsAt } from './found'
import { apiRoot, deleteOrGone, parseBody, providerCaller } from './http'
import { bestZone, normalizeDnsName } from './records'
import {
  type DnsCapabilities,
  type DnsDriver,
  type DnsDriverOptions,
  DnsProviderError,
  type DnsProviderErrorKind,
  type DnsRecordFound,
  type DnsZone,
} from './types'

export const CLOUDFLARE_BASE_URL = 'https://api.cloudflare.com/client/v4'
export const cloudflareCapabilities: DnsCapabilities = { proxy: true, delete: true, zoneKey: 'id' }

const PROVIDER = 'provider_a'
const PAGE_SIZE = 50
// Cloudflare's default page of DNS records.
const RECORDS_PAGE_SIZE = 100
const MAX_PAGES = 200
// Record types Cloudflare can put behind its proxy; a TXT record is always DNS only.
const PROXIABLE = new Set(['A', 'AAAA', 'CNAME'])
// 6003/6100-series: malformed auth headers; 9106/9109: unauthorized. Cloudflare answers some of these as 400.
const AUTH_CODES = new Set([6003, 6100, 6101, 6102, 6103, 6111, 9106, 9109, 10000])
// 7003: "could not route to /zones/<id>/…", an unknown zone or record identifier, sometimes answered as 400.
const NOT_FOUND_CODES = new Set([7003, 81044])
// 7000: "No route for that URI": the path is wrong (a mistaken apiBaseUrl), which says nothing about a record.
const NO_ROUTE = 7000
// 81058: "An identical record already exists". Whoever made it, it is reported as `exists` and never adopted.
const IDENTICAL_RECORD = 81058
// 971: "Please wait and consider throttling your request speed", Cloudflare's answer over its API rate limit.
const THROTTLED = 971
// Names in full; a CNAME target fully qualified without its dot; TXT content as written, quoted or not.
const LISTING: ListingForm = { targets: 'absolute', txt: txtText }

const MessageSchema = z.object({ code: z.number(), message: z.string() })
const EnvelopeSchema = z.object({ errors: z.array(MessageSchema).optional() })
const VerifySchema = z.object({ result: z.object({ id: z.string(), status: z.string() }) })
const ZonesSchema = z.object({
  result: z.array(z.object({ id: z.string(), name: z.string() })),
  result_info: z.object({ page: z.number(), total_pages: z.number() }),
})
const RecordSchema = z.object({ result: z.object({ id: z.string() }) })
const RecordsSchema = z.object({
  result: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      name: z.string(),
      content: z.string().default(''),
      ttl: z.number(),
    }),
  ),
  result_info: z.object({ page: z.number(), total_pages: z.number() }),
})

function errorsOf(body: unknown) {
  const parsed = EnvelopeSchema.safeParse(body)
  return parsed.success ? (parsed.data.errors ?? []) : []
}

function errorMessage(body: unknown): string | undefined {
  const errors = errorsOf(body)
  return errors.length ? errors.map((e) => `${e.code} ${e.message}`).join('; ') : undefined
}

function errorKind(_status: number, body: unknown): DnsProviderErrorKind | undefined {
  const codes = errorsOf(body).map((e) => e.code)
  if (codes.some((code) => AUTH_CODES.has(code))) return 'auth'
  if (codes.includes(THROTTLED)) return 'rate_limited'
  if (codes.includes(NO_ROUTE)) return 'invalid'
  if (codes.includes(IDENTICAL_RECORD)) return 'exists'
  if (codes.some((code) => NOT_FOUND_CODES.has(code))) return 'not_found'
  return undefined
}

/** provider_a: the Cloudflare API v4 with a Bearer API token; zones by id; the one provider that proxies. */
export function cloudflareDriver(options: DnsDriverOptions): DnsDriver {
  const baseUrl = apiRoot(CLOUDFLARE_BASE_URL, options.apiBaseUrl)
  const call = providerCaller({
    provider: PROVIDER,
    baseUrl,
    timeoutMs: options.timeoutMs,
    headers: { authorization: `Bearer ${options.token}` },
    withheld: [options.token],
    errorMessage,
    errorKind,
  })

  const listZones = async (): Promise<DnsZone[]> => {
    const zones: DnsZone[] = []
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { body } = await call(`/zones?page=${page}&per_page=${PAGE_SIZE}`)
      const parsed = parseBody(PROVIDER, ZonesSchema, body)
      zones.push(...parsed.result.map((zone) => ({ id: zone.id, name: normalizeDnsName(zone.name) })))
      if (parsed.result_info.page >= parsed.result_info.total_pages || parsed.result.length === 0) break
    }
    return zones
  }

  return {
    provider: PROVIDER,
    capabilities: cloudflareCapabilities,
    async verify() {
      let body: unknown
      try {
        body = (await call('/user/tokens/verify')).body
      } catch (error) {
        if (!(error instanceof DnsProviderError) || error.status !== 401) throw error
        // Account API tokens verify only at /accounts/{account_id}/tokens/verify and get the same 401 as a wrong
        // token here; the account id is not known, so a zone listing decides whether the token works.
        await call(`/zones?page=1&per_page=${PAGE_SIZE}`)
        return (
          'Cloudflare refused the token at GET /user/tokens/verify, which checks user API tokens only; ' +
          'GET /zones accepted it, so it was checked by listing zones (an account API token?)'
        )
      }
      const { status } = parseBody(PROVIDER, VerifySchema, body).result
      if (status !== 'active') {
        const said = quotableText(status, [options.token]) ?? 'not active'
        throw new DnsProviderError(PROVIDER, 'auth', `Cloudflare reports the token as ${said}`)
      }
      return 'Cloudflare reports the token active (GET /user/tokens/verify)'
    },
    listZones,
    findZone: async (hostname) => bestZone(await listZones(), hostname),
    async listRecords(zone, name) {
      const found: DnsRecordFound[] = []
      for (let page = 1; page <= MAX_PAGES; page++) {
        // A plain `name` matches the full name exactly (case-insensitively).
        const query = new URLSearchParams({
          name: normalizeDnsName(name),
          page: String(page),
          per_page: String(RECORDS_PAGE_SIZE),
        })
        const { body } = await call(`/zones/${encodeURIComponent(zone.id)}/dns_records?${query}`)
        const parsed = parseBody(PROVIDER, RecordsSchema, body)
        for (const { id, ...record } of parsed.result) {
          found.push(foundRecord(zone.name, LISTING, { recordId: id, ...record }))
        }
        if (parsed.result_info.page >= parsed.result_info.total_pages || parsed.result.length === 0) break
      }
      return recordsAt(found, name)
    },
    async createRecord(zone, record) {
      const proxied = record.proxied ?? false
      if (proxied && !PROXIABLE.has(record.type)) {
        throw new DnsProviderError(PROVIDER, 'invalid', `a ${record.type} record cannot be proxied`)
      }
      const { body } = await call(`/zones/${encodeURIComponent(zone.id)}/dns_records`, 'POST', {
        type: record.type,
        name: normalizeDnsName(record.name),
        // TXT content is a list of quoted character-strings; unquoted text is taken but flagged.
        content: record.type === 'TXT' ? quoteTxt(record.content) : record.content,
        ttl: record.ttl,
        ...(PROXIABLE.has(record.type) ? { proxied } : {}),
      })
      const { id } = parseBody(PROVIDER, RecordSchema, body).result
      return { zoneId: zone.id, zoneName: zone.name, recordId: id }
    },
    deleteRecord: (ref) =>
      deleteOrGone(() =>
        call(
          `/zones/${encodeURIComponent(ref.zoneId)}/dns_records/${encodeURIComponent(ref.recordId)}`,
          'DELETE',
        ),
      ),
  }
}

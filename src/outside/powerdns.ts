import { z } from '@hono/zod-openapi'
import { absoluteName } from '../lib/dns-name'
import { readErrorText, readJson } from './counterpart-body'
import { jsonErrorField, quotableText } from './counterpart-text'
import { fetchOutbound } from './fetch-outbound'

/** Where one PowerDNS Authoritative API answers, and the key it wants in X-API-Key. */
export interface PowerDnsEndpoint {
  apiUrl: string
  apiKey: string
  serverId: string
}

export type PowerDnsFailure =
  | 'unreachable'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'rejected'
  | 'server_error'
  | 'bad_response'

/** Every failure of a PowerDNS call: its kind, the HTTP status if one came back, and PowerDNS's own words. */
export class PowerDnsError extends Error {
  constructor(
    readonly kind: PowerDnsFailure,
    readonly status: number | null,
    message: string,
  ) {
    super(message)
  }
}

const RecordSchema = z.object({ content: z.string(), disabled: z.boolean() })
const RRsetSchema = z.object({
  name: z.string(),
  type: z.string(),
  ttl: z.number().int(),
  records: z.array(RecordSchema),
})
const ZoneSchema = z.object({
  id: z.string(),
  name: z.string(),
  dnssec: z.boolean(),
  serial: z.number().int(),
  rrsets: z.array(RRsetSchema).default([]),
})
const CryptokeySchema = z.object({
  id: z.number().int(),
  keytype: z.enum(['ksk', 'zsk', 'csk']),
  active: z.boolean(),
  published: z.boolean().default(true),
  flags: z.number().int(),
  dnskey: z.string(),
  ds: z.array(z.string()).default([]),
  privatekey: z.string().optional(),
})
const ServerSchema = z.object({ id: z.string(), daemon_type: z.string(), version: z.string() })

export type PowerDnsRecord = z.infer<typeof RecordSchema>
export type PowerDnsRRset = z.infer<typeof RRsetSchema>
export type PowerDnsZone = z.infer<typeof ZoneSchema>
export type Cryptokey = z.infer<typeof CryptokeySchema>
export type PowerDnsServer = z.infer<typeof ServerSchema>

/** One entry of a PATCH: REPLACE swaps the whole (name, type) set, DELETE removes it. Names are absolute. */
export type RRsetChange =
  | { name: string; type: string; changetype: 'REPLACE'; ttl: number; records: PowerDnsRecord[] }
  | { name: string; type: string; changetype: 'DELETE' }

export interface CreateZoneOptions {
  nameservers: string[]
  soa: string
}

const DEFAULT_TIMEOUT_MS = 5000

/**
 * A failed answer as a typed error. Only the `error` field of a JSON body is quoted, cut short, and never when
 * it repeats the API key; any other body (a proxy's error page, a stack) is left out.
 */
async function failureOf(response: Response, apiKey: string): Promise<PowerDnsError> {
  const quoted = quotableText(jsonErrorField(await readErrorText(response)) ?? '', [apiKey])
  const kind: PowerDnsFailure =
    response.status === 401 || response.status === 403
      ? 'unauthorized'
      : response.status === 404
        ? 'not_found'
        : response.status === 409
          ? 'conflict'
          : response.status === 400 || response.status === 422
            ? 'rejected'
            : 'server_error'
  const message = quoted
    ? `PowerDNS answered ${response.status}: ${quoted}`
    : `PowerDNS answered ${response.status}`
  return new PowerDnsError(kind, response.status, message)
}

/** A typed client for one box's PowerDNS Authoritative HTTP API (v1). */
export function powerDnsClient(endpoint: PowerDnsEndpoint, timeoutMs = DEFAULT_TIMEOUT_MS) {
  const base = `${endpoint.apiUrl.replace(/\/+$/, '')}/api/v1/servers/${encodeURIComponent(endpoint.serverId)}`
  const zonePath = (zone: string) => `/zones/${encodeURIComponent(absoluteName(zone))}`

  async function request(method: string, path: string, body?: unknown): Promise<Response> {
    const answer = await fetchOutbound(
      `${base}${path}`,
      {
        method,
        headers: {
          'x-api-key': endpoint.apiKey,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      timeoutMs,
    )
    if (!answer.answered) {
      throw new PowerDnsError(
        'unreachable',
        null,
        `PowerDNS at ${endpoint.apiUrl} did not answer: ${answer.reason}`,
      )
    }
    const { response } = answer
    if (!response.ok) throw await failureOf(response, endpoint.apiKey)
    return response
  }

  async function json<T>(schema: z.ZodType<T>, method: string, path: string, body?: unknown): Promise<T> {
    const response = await request(method, path, body)
    const parsed = schema.safeParse(await readJson(response))
    if (!parsed.success) {
      throw new PowerDnsError('bad_response', response.status, `PowerDNS sent an unexpected ${method} body`)
    }
    return parsed.data
  }

  async function empty(method: string, path: string, body?: unknown): Promise<void> {
    const response = await request(method, path, body)
    await response.body?.cancel()
  }

  return {
    /** The server object: proves the address, key and server id are right. */
    server: () => json(ServerSchema, 'GET', ''),
    getZone: (zone: string) => json(ZoneSchema, 'GET', zonePath(zone)),
    /** Creates a Native zone (no AXFR: the panel writes every box itself) that rectifies on API edits. */
    createZone: (zone: string, options: CreateZoneOptions) =>
      json(ZoneSchema, 'POST', '/zones', {
        name: absoluteName(zone),
        kind: 'Native',
        nameservers: options.nameservers.map(absoluteName),
        api_rectify: true,
        rrsets: [
          {
            name: absoluteName(zone),
            type: 'SOA',
            ttl: 3600,
            records: [{ content: options.soa, disabled: false }],
          },
        ],
      }),
    patchRRsets: (zone: string, rrsets: RRsetChange[]) => empty('PATCH', zonePath(zone), { rrsets }),
    /** Turns signing on (PowerDNS makes a CSK) or off (PowerDNS deletes the zone's keys). */
    setDnssec: (zone: string, enabled: boolean) => empty('PUT', zonePath(zone), { dnssec: enabled }),
    rectify: (zone: string) => empty('PUT', `${zonePath(zone)}/rectify`),
    listCryptokeys: (zone: string) => json(z.array(CryptokeySchema), 'GET', `${zonePath(zone)}/cryptokeys`),
    /** One key with its private part, for copying it to another box. */
    getCryptokey: (zone: string, id: number) =>
      json(CryptokeySchema, 'GET', `${zonePath(zone)}/cryptokeys/${id}`),
    importCryptokey: (
      zone: string,
      key: { keytype: string; active: boolean; published: boolean; content: string },
    ) => json(CryptokeySchema, 'POST', `${zonePath(zone)}/cryptokeys`, key),
    deleteCryptokey: (zone: string, id: number) => empty('DELETE', `${zonePath(zone)}/cryptokeys/${id}`),
  }
}

export type PowerDnsClient = ReturnType<typeof powerDnsClient>

/** The managed DNS providers, as the spec names them; each is modelled on one real provider's public API. */
export const DNS_PROVIDER_IDS = [
  'provider_a',
  'provider_b',
  'provider_c',
  'provider_d',
  'provider_e',
] as const
export type DnsProviderId = (typeof DNS_PROVIDER_IDS)[number]

export interface DnsCapabilities {
  /** The provider can put its own proxy in front of a record (only provider_a). */
  proxy: boolean
  /** A record the panel created can be deleted again through the API. */
  delete: boolean
  /** How the provider's API addresses a zone: an opaque id, or the zone's domain name. */
  zoneKey: 'id' | 'name'
}

/** A zone as the panel keeps it: the provider's key for it and its lowercase name without a trailing dot. */
export interface DnsZone {
  id: string
  name: string
}

export type DnsRecordType = 'A' | 'AAAA' | 'CNAME' | 'TXT'

export interface DnsRecordInput {
  type: DnsRecordType
  /** Fully qualified name inside the zone, without a trailing dot. */
  name: string
  content: string
  ttl: number
  /** Only a provider with the proxy capability accepts true. */
  proxied?: boolean
}

/** A record a provider holds, in the panel's form so it compares with what the panel plans to write. */
export interface DnsRecordFound {
  /** What deleteRecord takes to delete exactly this record (one value, where the provider keeps RRSets). */
  recordId: string
  /** Upper case: A, AAAA, CNAME, TXT, MX, CAA, … */
  type: string
  /** The fully qualified name, lowercase, without a trailing dot. */
  name: string
  /** CNAME, NS and PTR targets absolute, lowercase, without a trailing dot; TXT as its text, unquoted. */
  content: string
  /** Seconds as the provider keeps them (Cloudflare's 1: automatic); 0 when the zone's default applies. */
  ttl: number
}

/** Everything needed to delete a record the panel created; store it beside the row that caused the write. */
export interface DnsRecordRef {
  zoneId: string
  zoneName: string
  recordId: string
}

export interface DnsDriver {
  readonly provider: DnsProviderId
  readonly capabilities: DnsCapabilities
  /** Checks the token against the provider and says in words what was checked. */
  verify(): Promise<string>
  /** Every zone the token can see, following the provider's pagination. */
  listZones(): Promise<DnsZone[]>
  /** The zone holding a hostname (the longest matching suffix), or null when the token holds none. */
  findZone(hostname: string): Promise<DnsZone | null>
  /** Every record of any type at exactly `name` (fully qualified, in the zone), across all pages. */
  listRecords(zone: DnsZone, name: string): Promise<DnsRecordFound[]>
  createRecord(zone: DnsZone, record: DnsRecordInput): Promise<DnsRecordRef>
  /** Deletes a record the panel created; a record that is already gone is not an error. */
  deleteRecord(ref: DnsRecordRef): Promise<'deleted' | 'already-gone'>
}

export interface DnsDriverOptions {
  token: string
  /** Replaces the provider's API root, version path included (e.g. `https://dns.example.test/api/v1`). */
  apiBaseUrl?: string | null
  timeoutMs?: number
}

export type DnsDriverFactory = (options: DnsDriverOptions) => DnsDriver

/**
 * `exists`: the provider already holds a record identical to the one asked for. Whoever made it, that is
 * never a reason to treat it as the panel's own.
 */
export type DnsProviderErrorKind =
  | 'auth'
  | 'rate_limited'
  | 'not_found'
  | 'exists'
  | 'invalid'
  | 'unavailable'

/** What the provider's answer said besides its words, when the failure came from an answer at all. */
export interface DnsProviderAnswer {
  status?: number
  /** The pause the provider asked for (Retry-After on a 429 or 503). */
  retryAfterSeconds?: number
}

/** A provider call that failed, classified; the message is written for an operator and never holds the token. */
export class DnsProviderError extends Error {
  readonly status?: number
  readonly retryAfterSeconds?: number

  constructor(
    readonly provider: DnsProviderId,
    readonly kind: DnsProviderErrorKind,
    message: string,
    answer: DnsProviderAnswer = {},
  ) {
    super(message)
    this.name = 'DnsProviderError'
    this.status = answer.status
    this.retryAfterSeconds = answer.retryAfterSeconds
  }
}

/** Names used in messages: the spec's id plus the API it speaks. */
export const DNS_PROVIDER_LABELS: Record<DnsProviderId, string> = {
  provider_a: 'provider_a (Cloudflare API v4)',
  provider_b: 'provider_b (DigitalOcean API v2)',
  provider_c: 'provider_c (Hetzner Cloud API)',
  provider_d: 'provider_d (Vultr API v2)',
  provider_e: 'provider_e (Linode API v4)',
}

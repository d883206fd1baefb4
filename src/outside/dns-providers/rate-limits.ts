import type { DnsProviderId } from './types'

/** A provider's API rate limit: `requests` per account token in any `windowSeconds`. */
export interface ProviderRateLimit {
  requests: number
  windowSeconds: number
}

/**
 * Each provider's published API limit for the calls a record write makes (a read of the name, then creates). Where
 * a provider publishes several, the one that binds a steady stream of writes is kept:
 * - provider_a, Cloudflare: 1,200 requests per 5 minutes per user, all of a user's tokens together
 *   (developers.cloudflare.com/fundamentals/api/reference/limits); over it, every call is refused for 5 minutes.
 * - provider_b, DigitalOcean: 5,000 requests per hour per token, and 250 per minute (the `ratelimit-limit` header's
 *   description in DigitalOcean's OpenAPI spec, shared/headers.yml).
 * - provider_c, Hetzner Cloud: 3,600 requests per hour per project, refilled one a second (docs.hetzner.cloud,
 *   "Rate Limiting").
 * - provider_d, Vultr: 30 requests per second per client address (docs.vultr.com/support/platform/api, rate limits).
 * - provider_e, Linode: 200 requests per minute per user for paginated GET collections, the record read
 *   (techdocs.akamai.com/linode-api/reference/rate-limits); other calls 1,600 per minute.
 */
export const PUBLISHED_RATE_LIMITS: Record<DnsProviderId, ProviderRateLimit> = {
  provider_a: { requests: 1200, windowSeconds: 300 },
  provider_b: { requests: 5000, windowSeconds: 3600 },
  provider_c: { requests: 3600, windowSeconds: 3600 },
  provider_d: { requests: 30, windowSeconds: 1 },
  provider_e: { requests: 200, windowSeconds: 60 },
}

const OVERRIDE = /^(provider_[a-e])=(\d+)\/(\d+)$/

/**
 * The limit to pace an account of `provider` to: the published one, unless `overrides` (the
 * DNS_PROVIDER_RATE_LIMITS var, `provider_a=2400/300,…`) names another for that provider, as when a provider raised
 * the account's limit. Entries that do not parse are ignored.
 */
export function providerRateLimit(provider: DnsProviderId, overrides: string | undefined): ProviderRateLimit {
  for (const entry of (overrides ?? '').split(',')) {
    const match = entry.trim().match(OVERRIDE)
    if (match?.[1] !== provider) continue
    const requests = Number(match[2])
    const windowSeconds = Number(match[3])
    if (requests > 0 && windowSeconds > 0) return { requests, windowSeconds }
  }
  return PUBLISHED_RATE_LIMITS[provider]
}

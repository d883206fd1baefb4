/** The longest pause a counterpart may ask for; a larger ask (or a date years ahead) is read as one day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400

/** Seconds from a Retry-After header, which is either a number of seconds or an HTTP date; at most one day. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined
  const trimmed = value.trim()
  const seconds = /^\d+$/.test(trimmed)
    ? Number(trimmed)
    : Math.max(0, Math.ceil((Date.parse(trimmed) - now) / 1000))
  return Number.isNaN(seconds) ? undefined : Math.min(seconds, MAX_RETRY_AFTER_SECONDS)
}

// Above this a RateLimit-Reset is a Unix time (DigitalOcean, Hetzner), below it a number of seconds (the IETF draft).
const EPOCH_THRESHOLD = 1_000_000_000

/** Seconds until a RateLimit-Reset header's moment, for a 429 that carries no Retry-After; at most one day. */
export function parseRateLimitReset(value: string | null, now = Date.now()): number | undefined {
  if (!value || !/^\d+$/.test(value.trim())) return undefined
  const reset = Number(value.trim())
  const seconds = reset > EPOCH_THRESHOLD ? Math.max(0, reset - Math.floor(now / 1000)) : reset
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS)
}

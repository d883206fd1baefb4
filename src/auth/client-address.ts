import type { Env } from '../env'

/**
 * The caller's address, for sign-in budgets, or null when it cannot be known.
 * - `TRUSTED_CLIENT_IP_HEADER`, when the operator names one: the header the proxy in front sets. When it holds a
 *   list (`X-Forwarded-For`), the last entry is the one that proxy appended; earlier ones are what the client sent.
 * - Otherwise `cf-connecting-ip`, which Cloudflare's edge sets along with the `cf` object on every request it
 *   forwards. Without that object (workerd, another proxy, a direct call) the header is whatever the client sent,
 *   so it is not trusted. Neither is `wrangler dev` (ENVIRONMENT "development"): it makes up a `cf` object and
 *   keeps a client's own header.
 * Every caller with no known address is the one unknown client, whose budgets they share.
 */
export function clientAddress(
  request: Request,
  env: Pick<Env, 'ENVIRONMENT' | 'TRUSTED_CLIENT_IP_HEADER'>,
): string | null {
  const trusted = env.TRUSTED_CLIENT_IP_HEADER?.trim()
  if (trusted) return lastEntry(request.headers.get(trusted))
  if (request.cf === undefined || request.cf === null || env.ENVIRONMENT === 'development') return null
  return request.headers.get('cf-connecting-ip')
}

function lastEntry(value: string | null): string | null {
  const entry = value?.split(',').at(-1)?.trim().toLowerCase()
  // An address is short; anything longer is not one a proxy wrote.
  return entry && entry.length <= 64 ? entry : null
}

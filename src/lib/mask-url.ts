import type { Permission } from '../auth/permissions'
import type { Principal } from '../auth/principal'

const HIDDEN = '***'
const ABSOLUTE_URL = /^https?:\/\//i

/**
 * A stored URL as shown to whoever may not see the credentials it can carry: the userinfo, query and fragment
 * become `***` (`https://***@hooks.example/path?***`); scheme, host, port and path stay, so the receiver is still
 * recognisable. Text that does not parse as a URL is returned unchanged.
 */
export function maskUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  const userinfo = parsed.username || parsed.password ? `${HIDDEN}@` : ''
  const query = parsed.search ? `?${HIDDEN}` : ''
  const fragment = parsed.hash ? `#${HIDDEN}` : ''
  return `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${query}${fragment}`
}

/** The URL in full for a principal holding `permission` (who may also change it), masked for everyone else. */
export function urlFor(principal: Principal, permission: Permission, url: string): string {
  return principal.permissions.has(permission) ? url : maskUrl(url)
}

/** A copy of a JSON value with every http(s) URL string in it masked: what audit entries keep and show. */
export function maskUrlsIn<T>(value: T): T {
  if (typeof value === 'string') return (ABSOLUTE_URL.test(value) ? maskUrl(value) : value) as T
  if (Array.isArray(value)) return value.map(maskUrlsIn) as T
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, maskUrlsIn(inner)])) as T
  return value
}

import type { MiddlewareHandler } from 'hono'

/**
 * The Content-Security-Policy of every answer: the pages load only their own bundles and styles (React's style
 * props go through the CSSOM, which the policy allows), call only their own API, are never framed and take no
 * plugins or <base>. web/public/_headers repeats it for the static pages (a test keeps the two equal).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains'

/** Adds the policy and HSTS to answers that carry none (a static page's own, from _headers, is kept). */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    const headers = c.res.headers
    if (!headers.has('content-security-policy'))
      headers.set('content-security-policy', CONTENT_SECURITY_POLICY)
    if (!headers.has('strict-transport-security'))
      headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY)
  }
}

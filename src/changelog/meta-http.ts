import type { Hono } from 'hono'
import type { AppEnv } from '../env'
import { FEED_ISOLATE_TTL_MS } from './feed-cache'

export const FEED_PATH = '/meta/changelog'
export const VERSION_PATH = '/meta/version'

/** At most this long behind caches: an isolate's copy may be FEED_ISOLATE_TTL_MS old when a cache stores it. */
const FEED_FRESHNESS_BOUND_SECONDS = 60
const FEED_MAX_AGE_SECONDS = FEED_FRESHNESS_BOUND_SECONDS - FEED_ISOLATE_TTL_MS / 1000
/** Beyond the bound: a cache may serve its stale copy this long while it fetches a fresh one. */
const FEED_STALE_WHILE_REVALIDATE_SECONDS = 60

/** The CORS headers on every answer under /api/v1/meta (also what the OpenAPI document lists). */
export const META_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
} as const

export const FEED_CACHE_CONTROL = `public, max-age=${FEED_MAX_AGE_SECONDS}, stale-while-revalidate=${FEED_STALE_WHILE_REVALIDATE_SECONDS}`

/**
 * Opens every answer under /api/v1/meta to any origin, errors included: without the header a browser hides a
 * 400, 404 or 500 behind an opaque CORS failure. Mounted before the routes so it wraps them.
 */
export function mountMetaCors(app: Hono<AppEnv>): void {
  const headers = Object.entries(META_CORS_HEADERS)
  app.use('/api/v1/meta/*', async (c, next) => {
    await next()
    for (const [key, value] of headers) c.res.headers.set(key, value)
  })
}

/** Answers the CORS preflight of the public meta paths (the feed in its three formats, the version); everything else about them is a procedure. */
export function mountMetaPreflight(app: Hono<AppEnv>): void {
  for (const path of [FEED_PATH, `${FEED_PATH}.atom`, `${FEED_PATH}.rss`, VERSION_PATH]) {
    app.options(`/api/v1${path}`, (c) =>
      c.body(null, 204, {
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': 'If-None-Match',
        'access-control-max-age': '86400',
      }),
    )
  }
}

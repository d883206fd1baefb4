import type { Hono } from 'hono'
import type { AppEnv } from '../env'

export const FEED_PATH = '/meta/changelog'
export const VERSION_PATH = '/meta/version'

/** Seconds a cache may keep the feed; with the isolate TTL this bounds how late a change shows behind caches. */
const FEED_MAX_AGE_SECONDS = 60
const FEED_STALE_WHILE_REVALIDATE_SECONDS = 60

const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' }

export const FEED_HEADERS: Readonly<Record<string, string>> = {
  ...CORS,
  'cache-control': `public, max-age=${FEED_MAX_AGE_SECONDS}, stale-while-revalidate=${FEED_STALE_WHILE_REVALIDATE_SECONDS}`,
}
export const VERSION_HEADERS: Readonly<Record<string, string>> = CORS

/** Answers the CORS preflight of the two public meta paths; everything else about them is a procedure. */
export function mountMetaPreflight(app: Hono<AppEnv>): void {
  for (const path of [FEED_PATH, VERSION_PATH]) {
    app.options(`/api/v1${path}`, (c) =>
      c.body(null, 204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': 'If-None-Match',
        'access-control-max-age': '86400',
      }),
    )
  }
}

import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { type Db, db } from '../db/client'
import type { AppEnv } from '../env'
import {
  FEED_CONTENT_TYPES,
  type FeedDocument,
  type FeedFormat,
  renderAtom,
  renderRss,
} from '../lib/feed-xml'
import { ifNoneMatchHits } from '../rpc/rendered'
import { renderBadge } from './badge'
import { cachedCopy } from './edge-copies'
import { statusFeed } from './feed'
import { CLIENT_SECONDS } from './freshness'
import { publicStatusRoutes } from './public-openapi'
import { renderNotFoundHtml, renderStatusHtml } from './render-html'
import { SlugSchema } from './schemas'
import { isWaiting, type PublicStatus, publicStatus } from './summary'

type Face = 'json' | 'html' | 'badge' | 'atom' | 'rss'

interface FaceSpec {
  path(slug: string): string
  contentType: string
  /** The body for the public page, or null when there is no such public page. */
  build(db: Db, slug: string, origin: string, now: number): Promise<string | null>
}

/** The faces built from the page's status. */
const statusFace = (path: FaceSpec['path'], contentType: string, render: (s: PublicStatus) => string) => ({
  path,
  contentType,
  async build(db: Db, slug: string, _origin: string, now: number) {
    const status = await publicStatus(db, slug, now)
    return status && render(status)
  },
})

/** The faces built from the page's incidents and maintenance. */
const feedFace = (format: FeedFormat, render: (feed: FeedDocument) => string) => {
  const path = (slug: string) => `/status/${slug}/feed.${format}`
  return {
    path,
    contentType: FEED_CONTENT_TYPES[format],
    async build(db: Db, slug: string, origin: string, now: number) {
      const feed = await statusFeed(db, slug, origin, `${origin}${path(slug)}`, now)
      return feed && render(feed)
    },
  }
}

const FACES: Record<Face, FaceSpec> = {
  html: statusFace((slug) => `/status/${slug}`, 'text/html; charset=utf-8', renderStatusHtml),
  json: statusFace(
    (slug) => `/api/v1/status/${slug}`,
    'application/json; charset=utf-8',
    (s) => JSON.stringify(s),
  ),
  badge: statusFace(
    (slug) => `/api/v1/status/${slug}/badge.svg`,
    'image/svg+xml; charset=utf-8',
    (s) => renderBadge(s.title, isWaiting(s) ? 'waiting' : s.state),
  ),
  atom: feedFace('atom', renderAtom),
  rss: feedFace('rss', renderRss),
}

/** The headers every answer of a face carries, 200 and 304 alike. */
function answerHeaders(face: Face, etag: string): Record<string, string> {
  return {
    etag,
    'cache-control': `public, max-age=${CLIENT_SECONDS}`,
    ...(face === 'html'
      ? {}
      : { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' }),
  }
}

/** Builds the face from D1; null when there is no such public page. */
function build(c: Context<AppEnv>, face: Face, slug: string, now: number): Promise<string | null> {
  // A miss reads from the nearest replica: the answer is a cached copy up to EDGE_SECONDS old anyway.
  const replica = db(c.env.DB.withSession('first-unconstrained'))
  const origin = c.env.PANEL_ORIGIN ?? new URL(c.req.url).origin
  return FACES[face].build(replica, slug, origin, now)
}

/**
 * What a missing or private page answers: under /status the HTML Not found page (the web interface would
 * otherwise answer the path), under /api what any unknown API path answers.
 */
const notFound = (c: Context<AppEnv>, face: Face) =>
  face === 'json' || face === 'badge' ? c.notFound() : c.html(renderNotFoundHtml(), 404)

async function answer(c: Context<AppEnv>, face: Face, slug: string): Promise<Response> {
  const now = Date.now()
  const url = new URL(c.req.url)
  const path = FACES[face].path(slug)
  // The router decodes the slug, so `ac%6De` and `ACME` would reach here as other cache entries for the same
  // page (or other D1 reads): a page has one spelling, its slug as stored, and any other is not found.
  if (url.pathname !== path || !SlugSchema.safeParse(slug).success) return notFound(c, face)
  const key = new Request(`${url.origin}${path}`)
  const fresh = await cachedCopy(c, key, FACES[face].contentType, now, () => build(c, face, slug, now))
  if (!fresh) return notFound(c, face)
  const headers = answerHeaders(face, fresh.etag)
  if (ifNoneMatchHits(c.req.header('if-none-match'), fresh.etag)) return c.body(null, 304, headers)
  return c.body(fresh.body, 200, { ...headers, 'content-type': FACES[face].contentType })
}

/**
 * Mounts the public, unauthenticated faces of a public status page: the HTML page at /status/<slug>, its JSON
 * and its badge. A page that does not exist or is not public answers exactly what an unknown path answers.
 */
export function mountStatusPages(app: OpenAPIHono<AppEnv>): void {
  app.get('/status/:slug', (c) => answer(c, 'html', c.req.param('slug')))
  app.get('/api/v1/status/:slug', (c) => answer(c, 'json', c.req.param('slug')))
  app.get('/api/v1/status/:slug/badge.svg', (c) => answer(c, 'badge', c.req.param('slug')))
  app.get('/status/:slug/feed.atom', (c) => answer(c, 'atom', c.req.param('slug')))
  app.get('/status/:slug/feed.rss', (c) => answer(c, 'rss', c.req.param('slug')))
  for (const route of publicStatusRoutes) app.openAPIRegistry.registerPath(route)
}

import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { db } from '../db/client'
import type { AppEnv } from '../env'
import { BoundedMap } from '../lib/bounded-map'
import { sha256Hex } from '../lib/hash'
import { ifNoneMatchHits } from '../rpc/rendered'
import { renderBadge } from './badge'
import { CLIENT_SECONDS, EDGE_SECONDS } from './freshness'
import { publicStatusRoutes } from './public-openapi'
import { renderNotFoundHtml, renderStatusHtml } from './render-html'
import { SlugSchema } from './schemas'
import { isWaiting, type PublicStatus, publicStatus } from './summary'

const BUILT_AT = 'x-status-built-at'

type Face = 'json' | 'html' | 'badge'

const CONTENT_TYPES: Record<Face, string> = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  badge: 'image/svg+xml; charset=utf-8',
}

function render(face: Face, status: PublicStatus): string {
  if (face === 'json') return JSON.stringify(status)
  if (face === 'html') return renderStatusHtml(status)
  return renderBadge(status.title, isWaiting(status) ? 'waiting' : status.state)
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

interface Built {
  body: string
  etag: string
  builtAt: number
}

/**
 * This isolate's own copies of the faces, by canonical URL, under the same bound as the edge copy (served for EDGE_SECONDS
 * after it was built): a busy page answers from memory without asking the edge cache each time.
 */
const isolateCopies = new BoundedMap<string, Built>(1_000)

function isolateCopy(url: string, now: number): Built | undefined {
  const copy = isolateCopies.get(url)
  if (copy && now - copy.builtAt <= EDGE_SECONDS * 1000) return copy
  isolateCopies.delete(url)
  return undefined
}

/** The edge copy, or undefined when there is none or it was built more than EDGE_SECONDS ago. */
async function freshCopy(cache: Cache, key: Request, now: number): Promise<Built | undefined> {
  const copy = await cache.match(key)
  const builtAt = Number(copy?.headers.get(BUILT_AT))
  if (!copy || !(now - builtAt <= EDGE_SECONDS * 1000)) {
    await copy?.body?.cancel()
    return undefined
  }
  return { body: await copy.text(), etag: copy.headers.get('etag') ?? '', builtAt }
}

/** Builds the face from D1 and stores it at the edge; null when there is no such public page. */
async function build(c: Context<AppEnv>, face: Face, slug: string, key: Request, now: number) {
  // A miss reads from the nearest replica: the answer is a cached copy up to EDGE_SECONDS old anyway.
  const status = await publicStatus(db(c.env.DB.withSession('first-unconstrained')), slug, now)
  if (!status) return null
  const body = render(face, status)
  const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`
  const stored = new Response(body, {
    headers: {
      'content-type': CONTENT_TYPES[face],
      etag,
      'cache-control': `public, max-age=${EDGE_SECONDS}`,
      [BUILT_AT]: String(now),
    },
  })
  c.executionCtx.waitUntil(caches.default.put(key, stored))
  return { body, etag, builtAt: now }
}

/** What a missing or private page answers: the HTML Not found page, or what any unknown API path answers. */
const notFound = (c: Context<AppEnv>, face: Face) =>
  face === 'html' ? c.html(renderNotFoundHtml(), 404) : c.notFound()

const FACE_PATHS: Record<Face, (slug: string) => string> = {
  html: (slug) => `/status/${slug}`,
  json: (slug) => `/api/v1/status/${slug}`,
  badge: (slug) => `/api/v1/status/${slug}/badge.svg`,
}

async function answer(c: Context<AppEnv>, face: Face, slug: string): Promise<Response> {
  const now = Date.now()
  const url = new URL(c.req.url)
  const path = FACE_PATHS[face](slug)
  // The router decodes the slug, so `ac%6De` and `ACME` would reach here as other cache entries for the same
  // page (or other D1 reads): a page has one spelling, its slug as stored, and any other is not found.
  if (url.pathname !== path || !SlugSchema.safeParse(slug).success) return notFound(c, face)
  const key = new Request(`${url.origin}${path}`)
  const fresh =
    isolateCopy(key.url, now) ??
    (await freshCopy(caches.default, key, now)) ??
    (await build(c, face, slug, key, now))
  if (!fresh) return notFound(c, face)
  isolateCopies.set(key.url, fresh)
  const headers = answerHeaders(face, fresh.etag)
  if (ifNoneMatchHits(c.req.header('if-none-match'), fresh.etag)) return c.body(null, 304, headers)
  return c.body(fresh.body, 200, { ...headers, 'content-type': CONTENT_TYPES[face] })
}

/**
 * Mounts the public, unauthenticated faces of a public status page: the HTML page at /status/<slug>, its JSON
 * and its badge. A page that does not exist or is not public answers exactly what an unknown path answers.
 */
export function mountStatusPages(app: OpenAPIHono<AppEnv>): void {
  app.get('/status/:slug', (c) => answer(c, 'html', c.req.param('slug')))
  app.get('/api/v1/status/:slug', (c) => answer(c, 'json', c.req.param('slug')))
  app.get('/api/v1/status/:slug/badge.svg', (c) => answer(c, 'badge', c.req.param('slug')))
  for (const route of publicStatusRoutes) app.openAPIRegistry.registerPath(route)
}

import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { db } from '../db/client'
import type { AppEnv } from '../env'
import {
  FEED_CONTENT_TYPES,
  type FeedDocument,
  type FeedFormat,
  renderAtom,
  renderRss,
  tagUri,
} from '../lib/feed-xml'
import { sha256Hex } from '../lib/hash'
import { ifNoneMatchHits } from '../rpc/rendered'
import { problemResponses } from '../rpc/routes'
import { renderedFeed } from './feed-cache'
import { FEED_CACHE_CONTROL, FEED_PATH, META_CORS_HEADERS } from './meta-http'
import type { Feed, FeedRelease } from './schemas'

export const XML_FEED_PATHS: Record<FeedFormat, string> = {
  atom: `${FEED_PATH}.atom`,
  rss: `${FEED_PATH}.rss`,
}

/** When the changelog's tag: ids were minted: fixed, so an entry keeps its id whatever its release date says. */
const TAG_DATE = new Date('2025-01-01T00:00:00Z')

const CATEGORY_WORDS = { new: 'New', improved: 'Improved', fixed: 'Fixed' } as const

function releaseText(release: FeedRelease): string {
  const items = release.items.map((item) => `${CATEGORY_WORDS[item.category]}: ${item.text}`)
  return [release.summary ?? '', ...items].join('\n')
}

/** The JSON feed as an Atom or RSS document: one entry per published release, dated by its release date. */
export function changelogFeedDocument(feed: Feed, origin: string, format: FeedFormat): FeedDocument {
  const json = `${origin}/api/v1${FEED_PATH}`
  const entries = feed.releases.map((release) => ({
    id: tagUri(origin, TAG_DATE, `changelog/${release.version}`),
    title: `${release.version}: ${release.title}`,
    updated: new Date(`${release.date}T00:00:00Z`),
    link: `${json}#${encodeURIComponent(release.version)}`,
    text: releaseText(release),
  }))
  return {
    id: tagUri(origin, TAG_DATE, 'changelog'),
    title: 'Changelog',
    subtitle: 'Published releases, newest first',
    link: json,
    linkType: 'application/json',
    self: `${origin}/api/v1${XML_FEED_PATHS[format]}`,
    updated: entries[0]?.updated ?? TAG_DATE,
    author: 'Hosting panel',
    entries,
  }
}

interface RenderedXml {
  /** The ETag of the JSON feed it was rendered from. */
  source: string
  origin: string
  body: string
  etag: string
}

/** This isolate's rendering per format, kept while the JSON feed it came from (feed-cache.ts) is unchanged. */
const rendered = new Map<FeedFormat, RenderedXml>()

async function renderedXml(c: Context<AppEnv>, format: FeedFormat): Promise<RenderedXml> {
  const json = await renderedFeed(() => db(c.env.DB.withSession('first-unconstrained')), c.env.IMAGE_TAG)
  const origin = c.env.PANEL_ORIGIN ?? new URL(c.req.url).origin
  const source = json.etag ?? ''
  const kept = rendered.get(format)
  if (kept && kept.source === source && kept.origin === origin) return kept
  const document = changelogFeedDocument(JSON.parse(json.json) as Feed, origin, format)
  const body = format === 'atom' ? renderAtom(document) : renderRss(document)
  const fresh = { source, origin, body, etag: `"${(await sha256Hex(body)).slice(0, 32)}"` }
  rendered.set(format, fresh)
  return fresh
}

const answerHeaders = z.object({
  etag: z.string().openapi({ description: 'Strong validator of this body; send it back as If-None-Match' }),
  'cache-control': z.string().openapi({ description: FEED_CACHE_CONTROL }),
  'access-control-allow-origin': z
    .string()
    .openapi({ description: `\`${META_CORS_HEADERS['access-control-allow-origin']}\`` }),
})

const xmlFeedRoute = (format: FeedFormat) =>
  createRoute({
    method: 'get',
    path: `/api/v1${XML_FEED_PATHS[format]}`,
    operationId: `meta.changelog.${format}`,
    tags: ['meta'],
    summary: `The public changelog feed as ${format === 'atom' ? 'Atom 1.0' : 'RSS 2.0'}: one entry per published release, newest first`,
    description:
      'The same releases as the JSON feed, from the same cache: ETag (If-None-Match answers 304), Cache-Control and CORS alike. Entry ids are stable tag: URIs naming the version.',
    security: [],
    request: { headers: z.object({ 'if-none-match': z.string().optional() }) },
    responses: {
      200: {
        description: 'The feed',
        headers: answerHeaders,
        content: { [FEED_CONTENT_TYPES[format].split(';')[0] ?? '']: { schema: z.string() } },
      },
      304: { description: 'Not Modified: If-None-Match names the current ETag', headers: answerHeaders },
      ...problemResponses(['internal']),
    },
  })

/**
 * Serves the changelog as Atom and RSS beside the JSON feed, from the same isolate cache, with the same ETag,
 * 304, Cache-Control and CORS (mountMetaCors covers every /api/v1/meta answer).
 */
export function mountChangelogXmlFeeds(app: OpenAPIHono<AppEnv>): void {
  for (const format of ['atom', 'rss'] as const) {
    app.openAPIRegistry.registerPath(xmlFeedRoute(format))
    app.get(`/api/v1${XML_FEED_PATHS[format]}`, async (c) => {
      const { body, etag } = await renderedXml(c, format)
      const headers = { etag, 'cache-control': FEED_CACHE_CONTROL }
      if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers)
      return c.body(body, 200, { ...headers, 'content-type': FEED_CONTENT_TYPES[format] })
    })
  }
}

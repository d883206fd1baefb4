import { z } from '@hono/zod-openapi'
import { procedure } from '../rpc/define'
import { type RenderedOutput, serializeOutput } from '../rpc/rendered'
import { renderedFeed } from './feed-cache'
import { FEED_CACHE_CONTROL, FEED_PATH, VERSION_PATH } from './meta-http'
import { FeedSchema } from './schemas'

// Plain objects, not strict ones: a GET input is the query string, where clients and caches add parameters of
// their own (a cache buster such as `?_=123`); they are ignored.
const NoInputSchema = z.object({})

const VersionSchema = z.object({ version: z.string() }).openapi('Version')

let version: { imageTag: string; rendered: RenderedOutput<z.input<typeof VersionSchema>> } | null = null

/** The version answer, checked and serialised once per image tag (the tag is fixed for an isolate's life). */
function renderedVersion(imageTag: string) {
  if (version?.imageTag !== imageTag)
    version = { imageTag, rendered: serializeOutput(VersionSchema, { version: imageTag }) }
  return version.rendered
}

export const metaProcedures = {
  changelog: procedure({
    kind: 'query',
    permission: 'public',
    summary:
      'The public changelog feed: published releases newest first. Cacheable (ETag, If-None-Match answers 304), CORS open',
    input: NoInputSchema,
    output: FeedSchema,
    rest: { method: 'get', path: FEED_PATH },
    documented: {
      headers: {
        ETag: 'Strong validator of this body; send it back as If-None-Match',
        'Cache-Control': FEED_CACHE_CONTROL,
      },
      responses: { 304: 'Not Modified: If-None-Match names the current ETag' },
    },
    async handler(_input, ctx) {
      ctx.responseHeaders.set('cache-control', FEED_CACHE_CONTROL)
      return renderedFeed(() => ctx.db, ctx.env.IMAGE_TAG)
    },
  }),
  version: procedure({
    kind: 'query',
    permission: 'public',
    summary: 'The running image tag',
    input: NoInputSchema,
    output: VersionSchema,
    rest: { method: 'get', path: VERSION_PATH },
    async handler(_input, ctx) {
      return renderedVersion(ctx.env.IMAGE_TAG)
    },
  }),
}

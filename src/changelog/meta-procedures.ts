import { z } from '@hono/zod-openapi'
import { procedure } from '../rpc/define'
import { renderedFeed } from './feed-cache'
import { FEED_CACHE_CONTROL, FEED_PATH, VERSION_PATH } from './meta-http'
import { FeedSchema } from './schemas'

// Plain objects, not strict ones: a GET input is the query string, where clients and caches add parameters of
// their own (a cache buster such as `?_=123`); they are ignored.
const NoInputSchema = z.object({})

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
    output: z.object({ version: z.string() }).openapi('Version'),
    rest: { method: 'get', path: VERSION_PATH },
    async handler(_input, ctx) {
      return { version: ctx.env.IMAGE_TAG }
    },
  }),
}

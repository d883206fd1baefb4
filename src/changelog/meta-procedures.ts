import { z } from '@hono/zod-openapi'
import { procedure } from '../rpc/define'
import { renderedFeed } from './feed-cache'
import { FEED_HEADERS, FEED_PATH, VERSION_HEADERS, VERSION_PATH } from './meta-http'
import { FeedSchema } from './schemas'

function setHeaders(target: Headers, headers: Readonly<Record<string, string>>): void {
  for (const [key, value] of Object.entries(headers)) target.set(key, value)
}

export const metaProcedures = {
  changelog: procedure({
    kind: 'query',
    permission: 'public',
    summary:
      'The public changelog feed: published releases newest first. Cacheable (ETag, If-None-Match answers 304), CORS open',
    input: z.strictObject({}),
    output: FeedSchema,
    rest: { method: 'get', path: FEED_PATH },
    async handler(_input, ctx) {
      setHeaders(ctx.responseHeaders, FEED_HEADERS)
      return renderedFeed(ctx.db, ctx.env.IMAGE_TAG)
    },
  }),
  version: procedure({
    kind: 'query',
    permission: 'public',
    summary: 'The running image tag',
    input: z.strictObject({}),
    output: z.object({ version: z.string() }).openapi('Version'),
    rest: { method: 'get', path: VERSION_PATH },
    async handler(_input, ctx) {
      setHeaders(ctx.responseHeaders, VERSION_HEADERS)
      return { version: ctx.env.IMAGE_TAG }
    },
  }),
}

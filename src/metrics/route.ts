import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi'
import { authenticate } from '../auth/authenticate'
import { db } from '../db/client'
import type { AppEnv } from '../env'
import { forbidden, unauthenticated, validationFailed } from '../rpc/errors'
import { problemResponses } from '../rpc/routes'
import { CONTENT_TYPES, negotiate, render } from './exposition'
import { families } from './families'
import { readScrape } from './read'

export const METRICS_PATH = '/metrics'
const PERMISSION = 'settings:view'

/** The scrape's slice: one of `shards` ranges of ids, at most `limit` rows of each per-entity family. */
const MetricsQuerySchema = z
  .object({
    shard: z.coerce
      .number()
      .int()
      .min(0)
      .max(255)
      .default(0)
      .openapi({ description: 'Which shard of the ids this scrape reads, 0..shards-1' }),
    shards: z.coerce.number().int().min(1).max(256).default(1).openapi({
      description: 'How many equal ranges of the ids (their first four hex digits) the scrapes share',
    }),
    limit: z.coerce.number().int().min(1).max(10_000).default(1000).openapi({
      description: 'The most rows of each per-entity family (probes, domains, certificates, nodes)',
    }),
  })
  .refine((q) => q.shard < q.shards, { path: ['shard'], message: 'must be less than shards' })

const metricsRoute = createRoute({
  method: 'get',
  path: METRICS_PATH,
  operationId: 'metrics.scrape',
  tags: ['settings'],
  summary: 'Metrics for Prometheus (OpenMetrics text)',
  description:
    'Probe states and up, check latency histograms, heartbeat ping ages, domain and custom hostname certificate expiry, node health and failed jobs, for a principal holding settings:view. OpenMetrics 1.0 unless the Accept header names only text/plain (then the Prometheus text format 0.0.4). Each per-entity family holds at most `limit` rows of the shard; `panel_metrics_truncated{family}` is 1 when rows were left out. Spread a large installation over several scrape targets with `shard` and `shards`.',
  security: [{ bearerAuth: [] }, { sessionCookie: [] }],
  request: { query: MetricsQuerySchema },
  responses: {
    200: {
      description: 'The exposition',
      content: {
        'application/openmetrics-text': { schema: z.string() },
        'text/plain': { schema: z.string() },
      },
    },
    ...problemResponses(['validation_failed', 'unauthenticated', 'forbidden', 'internal']),
  },
})

/** Mounts GET /metrics. */
export function mountMetrics(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerPath(metricsRoute)
  app.get(METRICS_PATH, async (c) => {
    const principal = await authenticate(
      db(c.env.DB),
      { authorization: c.req.header('authorization'), cookie: c.req.header('cookie') },
      true,
    )
    if (principal.kind === 'anonymous') throw unauthenticated('send a bearer token holding settings:view')
    if (principal.kind === 'site-token') throw forbidden('a site token may not read the metrics')
    if (!principal.permissions.has(PERMISSION))
      throw forbidden(`the metrics need the permission ${PERMISSION}`)
    const query = MetricsQuerySchema.safeParse(c.req.query())
    if (!query.success) throw validationFailed(query.error)
    const now = Date.now()
    const scraped = await readScrape(c.env.DB, query.data, now)
    const format = negotiate(c.req.header('accept'))
    return c.body(render(families(scraped, query.data, now), format), 200, {
      'content-type': CONTENT_TYPES[format],
      vary: 'Accept',
    })
  })
}

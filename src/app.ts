import { OpenAPIHono } from '@hono/zod-openapi'
import { requestId } from 'hono/request-id'
import { mountAgentCallbacks } from './agent-callbacks/route'
import { mountMetaCors, mountMetaPreflight } from './changelog/meta-http'
import { mountChangelogXmlFeeds } from './changelog/xml-feeds'
import type { AppEnv } from './env'
import { securityHeaders } from './lib/security-headers'
import { mountMetrics } from './metrics/route'
import { mountAvailabilityCsv } from './probes/availability/csv-route'
import { HEARTBEAT_PATH, mountHeartbeat } from './probes/heartbeat/route'
import { AppError, validationFailed } from './rpc/errors'
import { mountOpenApi } from './rpc/openapi'
import { problemResponse, toAppError } from './rpc/problem-response'
import { procedures } from './rpc/registry'
import { mountProcedures } from './rpc/transport'
import { mountProbeBadges } from './status-pages/probe-badges/route'
import { mountStatusPages } from './status-pages/public-route'
import { mountStatusPageSubscriptions } from './status-pages/subscribers/routes'

/** Builds the Hono app: request ids, error shape, every procedure on every face, and the OpenAPI document. */
export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationFailed(result.error)
    },
  })
  // Always our own id (limitLength 0 adopts no incoming x-request-id): audit entries must not carry one a
  // client chose.
  app.use(requestId({ headerName: 'x-request-id', limitLength: 0 }))
  app.use(async (c, next) => {
    await next()
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store')
  })
  app.use(securityHeaders())
  // Liveness for load balancers and the benchmark's baseline: no auth, no storage.
  app.get('/healthz', (c) => c.text('ok'))
  mountMetaCors(app)
  mountMetaPreflight(app)
  mountChangelogXmlFeeds(app)
  mountProcedures(app, procedures)
  mountAgentCallbacks(app)
  mountHeartbeat(app)
  mountAvailabilityCsv(app)
  mountStatusPages(app)
  mountProbeBadges(app)
  mountMetrics(app)
  mountStatusPageSubscriptions(app)
  mountOpenApi(app)
  app.onError((error, c) => {
    const appError = toAppError(error)
    if (appError.code === 'internal') console.error(`request ${c.get('requestId')} failed`, error)
    return problemResponse(c, appError)
  })
  app.notFound(async (c) => {
    const path = new URL(c.req.url).pathname
    // Everything outside /api is the web interface. In production the asset router answers most of it before
    // the Worker runs; this fallback covers the rest and is the path tests (which skip that router) exercise.
    if (!path.startsWith('/api/') && (c.req.method === 'GET' || c.req.method === 'HEAD')) {
      const asset = await c.env.ASSETS.fetch(c.req.raw)
      // A fetched response's headers are immutable; the cache-control middleware may still need to write.
      return new Response(asset.body, asset)
    }
    const isProcedureCall =
      path.startsWith('/api/rpc/') || (c.req.method === 'POST' && path.startsWith('/api/v1/'))
    if (isProcedureCall)
      return problemResponse(
        c,
        new AppError('procedure_not_found', `no procedure answers ${c.req.method} ${path}`),
      )
    // A heartbeat URL holds its credential: a refusal names neither it nor the path (error bodies end up in logs).
    if (path.startsWith(HEARTBEAT_PATH))
      return problemResponse(
        c,
        new AppError('not_found', `no heartbeat probe answers ${c.req.method} at this URL`),
      )
    return problemResponse(c, new AppError('not_found', `nothing answers ${c.req.method} ${path}`))
  })
  return app
}

import type { OpenAPIHono } from '@hono/zod-openapi'
import { SESSION_COOKIE } from '../auth/session-cookie'
import type { AppEnv } from '../env'

export const OPENAPI_PATH = '/api/v1/openapi.json'

/** Serves the OpenAPI 3.1 document generated from the routes registered on the app. */
export function mountOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`pat_…`) or a site-bound token (`spat_…`).',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session cookie set by auth.login. State-changing calls must carry the panel Origin.',
  })
  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: '3.1.0',
    info: {
      title: 'Hosting Panel API',
      version: c.env.IMAGE_TAG,
      description:
        'Every procedure is also reachable as `POST /api/rpc/<dotted.name>` with the same JSON body and answers. Errors are application/problem+json.',
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }))
}

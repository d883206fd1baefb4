import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { d1Session } from '../db/session'
import type { AppEnv } from '../env'
import type { AnyProcedure } from './define'
import { AppError } from './errors'
import { execute } from './execute'
import { guard } from './guard'
import { procedureRoute, type RouteTarget } from './routes'

/**
 * Every face a procedure is served on: RPC, its dedicated REST route if it has one, and the REST fallback
 * `POST /api/v1/<dotted/path>` unless the dedicated route already owns that path (so `POST` to a GET-only
 * path such as /api/v1/meta/changelog stays a 404) and the procedure is not a stream.
 */
export function procedureTargets(name: string, proc: AnyProcedure): RouteTarget[] {
  const fallback = `/api/v1/${name.replaceAll('.', '/')}`
  const dedicated = proc.rest ? `/api/v1${proc.rest.path}` : undefined
  const targets: RouteTarget[] = [
    { method: 'post', path: `/api/rpc/${name}`, operationId: `rpc:${name}`, rpc: true },
  ]
  // A stream procedure's GET route (for EventSource) shares the fallback's path and keeps the POST beside it.
  const keepsFallback = dedicated !== fallback || proc.stream === true
  if (keepsFallback) targets.push({ method: 'post', path: fallback, operationId: name, rpc: false })
  if (proc.rest && dedicated) {
    const operationId = keepsFallback ? `${name}.rest` : name
    targets.push({ method: proc.rest.method, path: dedicated, operationId, rpc: false })
  }
  return targets
}

type ValidatedContext = Context<AppEnv, string, { out: { json: unknown; query: unknown } }>

// The body is read as UTF-8 JSON, so only that is accepted: other JSON media types (problem+json,
// vnd.api+json, json-patch+json) and other charsets are 415 rather than parsed as if they were this.
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i

const jsonOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const contentType = c.req.header('content-type')
  if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType)) {
    throw new AppError('unsupported_media_type', 'send the body as application/json (UTF-8)')
  }
  await next()
}

const querySession = d1Session('query')
const mutationSession = d1Session('mutation')

/** Registers every procedure of the registry on the app. */
export function mountProcedures(
  app: OpenAPIHono<AppEnv>,
  procedures: ReadonlyMap<string, AnyProcedure>,
): void {
  for (const [name, proc] of procedures) {
    for (const target of procedureTargets(name, proc)) {
      const route = procedureRoute(name, proc, target)
      const source = target.method === 'get' ? 'query' : 'json'
      const session = proc.kind === 'mutation' ? mutationSession : querySession
      const middleware = target.method === 'post' ? [session, guard(proc), jsonOnly] : [session, guard(proc)]
      app.openapi({ ...route, middleware }, ((c: ValidatedContext) =>
        execute(c, name, proc, c.req.valid(source))) as never)
    }
  }
}

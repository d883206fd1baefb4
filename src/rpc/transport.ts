import { type OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { d1Session } from '../db/session'
import type { AppEnv } from '../env'
import type { AnyProcedure } from './define'
import { AppError, validationFailed } from './errors'
import { execute } from './execute'
import { guard } from './guard'
import { procedureRoute, type RouteTarget } from './routes'

/** A procedure served by its GET route alone (the public feed and version): neither RPC nor a POST face. */
export function isGetOnly(proc: AnyProcedure): boolean {
  return proc.rest?.method === 'get' && proc.stream !== true
}

/**
 * Every face a procedure is served on: RPC, its dedicated REST route if it has one, and the REST fallback
 * `POST /api/v1/<dotted/path>` unless the dedicated route already owns that path and the procedure is not a
 * stream. A GET-only procedure has its GET route alone, so `POST` to /api/v1/meta/changelog and to
 * /api/rpc/meta.changelog are both 404 `procedure_not_found`.
 */
export function procedureTargets(name: string, proc: AnyProcedure): RouteTarget[] {
  const fallback = `/api/v1/${name.replaceAll('.', '/')}`
  const dedicated = proc.rest ? `/api/v1${proc.rest.path}` : undefined
  const targets: RouteTarget[] = isGetOnly(proc)
    ? []
    : [{ method: 'post', path: `/api/rpc/${name}`, operationId: `rpc:${name}`, rpc: true }]
  // A stream procedure's GET route (for EventSource) shares the fallback's path and keeps the POST beside it.
  const keepsFallback = dedicated !== fallback || proc.stream === true
  if (keepsFallback) targets.push({ method: 'post', path: fallback, operationId: name, rpc: false })
  if (proc.rest && dedicated) {
    const operationId = keepsFallback ? `${name}.rest` : name
    targets.push({ method: proc.rest.method, path: dedicated, operationId, rpc: false })
  }
  return targets
}

type ValidatedContext = Context<AppEnv, string, { out: { json: unknown } }>

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

/** A GET face's header schema, and the header names it documents (the only ones it reads). */
interface GetHeaders {
  schema: z.ZodType
  names: string[]
}

/** The schemas of a GET face's query and headers, as its route documents them. */
function getParts(route: ReturnType<typeof procedureRoute>): {
  query: z.ZodType
  headers: GetHeaders | undefined
} {
  const { query, headers } = route.request ?? {}
  if (!query || (headers !== undefined && !(headers instanceof z.ZodObject)) || route.path.includes('{'))
    throw new Error(
      `${route.path}: a GET face takes a query object, at most one headers object and no path parameters`,
    )
  return { query, headers: headers && { schema: headers, names: Object.keys(headers.shape) } }
}

/**
 * A GET face's input: its query (a repeated key becomes an array) checked against its schema, and its headers
 * against theirs. Synchronous, in place of the two async validator middlewares `app.openapi` would add, which cost
 * more than the rest of a cached GET's work (docs/performance.md, on the bench); a failure is the same 400 either way.
 */
function readGetInput(c: Context<AppEnv>, query: z.ZodType, headers: GetHeaders | undefined): unknown {
  const values = c.req.url.includes('?')
    ? Object.entries(c.req.queries()).map(([key, all]) => [key, all.length === 1 ? all[0] : all])
    : []
  const input = query.safeParse(Object.fromEntries(values))
  if (!input.success) throw validationFailed(input.error)
  if (headers) {
    // Only the documented headers: the schema ignores every other one, so copying them all would be wasted work.
    const sent: Record<string, string> = {}
    for (const name of headers.names) {
      const value = c.req.raw.headers.get(name)
      if (value !== null) sent[name] = value
    }
    const checked = headers.schema.safeParse(sent)
    if (!checked.success) throw validationFailed(checked.error)
  }
  return input.data
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
      const session = proc.kind === 'mutation' ? mutationSession : querySession
      if (target.method === 'get') {
        app.openAPIRegistry.registerPath(route)
        const { query, headers } = getParts(route)
        app.get(target.path, session, guard(proc, false), (c) =>
          execute(c, name, proc, readGetInput(c, query, headers)),
        )
        continue
      }
      const middleware = [session, guard(proc, true), jsonOnly]
      app.openapi({ ...route, middleware }, ((c: ValidatedContext) =>
        execute(c, name, proc, c.req.valid('json'))) as never)
    }
  }
}

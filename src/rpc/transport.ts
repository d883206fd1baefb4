import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../env'
import type { AnyProcedure } from './define'
import { execute } from './execute'
import { guard } from './guard'
import { procedureRoute, type RouteTarget } from './routes'

/**
 * Every face a procedure is served on: RPC, its dedicated REST route if it has one, and the REST fallback
 * `POST /api/v1/<dotted/path>` unless the dedicated route already owns that path (so `POST` to a GET-only
 * path such as /api/v1/meta/changelog stays a 404).
 */
export function procedureTargets(name: string, proc: AnyProcedure): RouteTarget[] {
  const fallback = `/api/v1/${name.replaceAll('.', '/')}`
  const dedicated = proc.rest ? `/api/v1${proc.rest.path}` : undefined
  const targets: RouteTarget[] = [
    { method: 'post', path: `/api/rpc/${name}`, operationId: `rpc:${name}`, hide: true },
  ]
  if (dedicated !== fallback) targets.push({ method: 'post', path: fallback, operationId: name, hide: false })
  if (proc.rest && dedicated) {
    const operationId = dedicated === fallback ? name : `${name}.rest`
    targets.push({ method: proc.rest.method, path: dedicated, operationId, hide: false })
  }
  return targets
}

type ValidatedContext = Context<AppEnv, string, { out: { json: unknown; query: unknown } }>

/** Registers every procedure of the registry on the app. */
export function mountProcedures(
  app: OpenAPIHono<AppEnv>,
  procedures: ReadonlyMap<string, AnyProcedure>,
): void {
  for (const [name, proc] of procedures) {
    for (const target of procedureTargets(name, proc)) {
      const route = procedureRoute(name, proc, target)
      const source = target.method === 'get' ? 'query' : 'json'
      app.openapi({ ...route, middleware: [guard(proc)] }, ((c: ValidatedContext) =>
        execute(c, name, proc, c.req.valid(source))) as never)
    }
  }
}

import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../env'
import type { AnyProcedure } from './define'
import { execute } from './execute'
import { guard } from './guard'
import { procedureRoute, type RouteTarget } from './routes'

/** Every face a procedure is served on: RPC, the REST fallback, and its dedicated REST route if it has one. */
export function procedureTargets(name: string, proc: AnyProcedure): RouteTarget[] {
  const targets: RouteTarget[] = [
    { method: 'post', path: `/api/rpc/${name}`, operationId: `rpc:${name}`, hide: true },
    { method: 'post', path: `/api/v1/${name.replaceAll('.', '/')}`, operationId: name, hide: false },
  ]
  if (proc.rest) {
    targets.push({
      method: proc.rest.method,
      path: `/api/v1${proc.rest.path}`,
      operationId: `${name}.rest`,
      hide: false,
    })
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

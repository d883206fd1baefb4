import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { authenticate } from '../auth/authenticate'
import { ANONYMOUS, type Principal } from '../auth/principal'
import { callDb } from '../db/session'
import type { AppEnv } from '../env'
import type { AnyProcedure } from './define'
import { AppError, forbidden, unauthenticated } from './errors'
import { keepPrefetch, startPrefetch } from './prefetch'

export const MAX_BODY_BYTES = 64 * 1024

/** The panel's own origin: PANEL_ORIGIN when set, else the origin the request was addressed to. */
export function panelOrigin(c: Context<AppEnv>): string {
  return c.env.PANEL_ORIGIN ?? new URL(c.req.url).origin
}

/** Permission check: no principal is 401, a principal without the permission is 403. */
export function authorize(proc: AnyProcedure, principal: Principal): void {
  if (proc.permission === 'public') return
  if (principal.kind === 'anonymous') throw unauthenticated('sign in or send a bearer token')
  if (principal.kind === 'site-token' && !proc.siteScoped)
    throw forbidden('a site token may call only the customHostnames procedures of its own site')
  if (proc.permission === 'authenticated') return
  if (proc.permission === 'session') {
    if (principal.kind !== 'session')
      throw forbidden('only a signed-in user may call this; an API token may not')
    return
  }
  if (!principal.permissions.has(proc.permission)) {
    throw forbidden(`this procedure needs the permission ${proc.permission}`)
  }
}

/** Browsers attach cookies to cross-site requests, so a cookie (or cookieless sign-in) mutation must come from our origin. */
function checkOrigin(c: Context<AppEnv>, proc: AnyProcedure, principal: Principal): void {
  if (proc.kind !== 'mutation' || principal.kind === 'token' || principal.kind === 'site-token') return
  const origin = c.req.header('origin')
  if (principal.kind === 'session' && origin === undefined) {
    throw forbidden('a cookie-authenticated change must carry an Origin header')
  }
  if (origin !== undefined && origin !== panelOrigin(c))
    throw forbidden(`requests from ${origin} are not accepted`)
}

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new AppError('payload_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes`)
  },
})

/**
 * Runs before input validation: who is calling, may they, and is the body small enough (a face that reads one: a
 * GET face's input is its query and headers). A procedure's prefetch reads go out beside the authentication and
 * reach its handler only if the caller passes.
 */
export function guard(proc: AnyProcedure, readsBody: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const reads = startPrefetch(c, proc, MAX_BODY_BYTES)
    const principal =
      proc.permission === 'public'
        ? ANONYMOUS
        : await authenticate(
            callDb(c),
            { authorization: c.req.header('authorization'), cookie: c.req.header('cookie') },
            proc.kind === 'query',
          )
    authorize(proc, principal)
    checkOrigin(c, proc, principal)
    c.set('principal', principal)
    keepPrefetch(c, reads)
    return readsBody ? limitBody(c, next) : next()
  }
}

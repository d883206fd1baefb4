import type { Context, MiddlewareHandler } from 'hono'
import type { Principal } from '../auth/principal'
import { SESSION_COOKIE } from '../auth/session-cookie'
import type { AppEnv } from '../env'
import { invalid } from '../rpc/errors'
import { BOOKMARK_HEADER, bookmarkCookie, newerBookmark, parseBookmark, readBookmarkCookie } from './bookmark'
import { type Db, db } from './client'

type ProcedureKind = 'query' | 'mutation'

/**
 * The newest bookmark the caller holds: the header's (checked: a malformed one is a 400 naming it) or the pages'
 * cookie's (a malformed cookie is ignored and replaced, since a browser cannot mend it).
 */
function incomingBookmark(c: Context<AppEnv>): { sent: string | null; remembered: string | null } {
  const header = c.req.header(BOOKMARK_HEADER)
  const sent = header ? parseBookmark(header) : null
  if (header && sent === null) {
    throw invalid(
      BOOKMARK_HEADER,
      'is not a D1 bookmark; send back the x-d1-bookmark of an earlier answer unchanged, or leave the header out',
    )
  }
  return { sent, remembered: readBookmarkCookie(c.req.header('cookie')) }
}

// A signed-in browser keeps the bookmark in a cookie; so does the answer that signs one in (or out).
function answersPages(c: Context<AppEnv>): boolean {
  const kind = (c.get('principal') as Principal | undefined)?.kind
  if (kind === 'session') return true
  if (kind === 'token' || kind === 'site-token') return false
  return c.res.headers.getSetCookie().some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))
}

const handles = new WeakMap<D1DatabaseSession, Db>()

/** Drizzle over the call's D1 session, made on first use: an answer from a cache never builds it. */
export function callDb(c: Context<AppEnv>): Db {
  const session = c.get('d1')
  let handle = handles.get(session)
  if (!handle) {
    handle = db(session)
    handles.set(session, handle)
  }
  return handle
}

/**
 * Runs a procedure call, its authentication included, on one D1 session. A query starts at the caller's bookmark
 * (any replica at least that new) or, without one, wherever is nearest; a mutation starts on the primary, so the
 * checks it makes before writing see the newest state (writes always go to the primary). The answer carries the
 * session's bookmark (else the caller's own, when nothing was read) in the header, and in the cookie for the pages.
 */
export function d1Session(kind: ProcedureKind): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { sent, remembered } = incomingBookmark(c)
    const incoming = newerBookmark(sent, remembered)
    const session = c.env.DB.withSession(
      kind === 'mutation' ? 'first-primary' : (incoming ?? 'first-unconstrained'),
    )
    c.set('d1', session)
    c.set('bookmark', incoming)
    await next()
    const bookmark = newerBookmark(session.getBookmark(), incoming)
    if (bookmark === null) return
    c.res.headers.set(BOOKMARK_HEADER, bookmark)
    if (bookmark !== remembered && answersPages(c))
      c.res.headers.append('set-cookie', bookmarkCookie(bookmark))
  }
}

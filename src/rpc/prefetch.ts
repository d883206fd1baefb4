import type { BatchResponse } from 'drizzle-orm/batch'
import type { Context } from 'hono'
import { readSessionCookie } from '../auth/session-cookie'
import { callDb } from '../db/session'
import type { AppEnv } from '../env'
import type { AnyProcedure, Prefetch, Reads } from './define'

/** Declares a procedure's prefetch: its reads (one batch) and `decode`, typed by those reads' results. */
export function prefetchReads<R extends Reads, T>(
  reads: R,
  decode: (results: BatchResponse<R>) => T,
): Prefetch<T> {
  return { reads, decode: (results) => decode(results as BatchResponse<R>) }
}

// The reads under way for a call, kept only once its caller was authorised; null when they failed.
const authorised = new WeakMap<Context<AppEnv>, Promise<readonly unknown[] | null>>()

// A call presenting no credential to a procedure that needs one is answered 401: nothing to read for it.
function presentsCredentials(c: Context<AppEnv>): boolean {
  return (
    c.req.header('authorization') !== undefined || readSessionCookie(c.req.header('cookie')) !== undefined
  )
}

/** The body of a copy of the request, up to `maxBytes`; undefined when it is longer (the guard answers 413). */
async function boundedBody(request: Request, maxBytes: number): Promise<string | undefined> {
  const reader = request.clone().body?.getReader()
  if (!reader) return undefined
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new TextDecoder().decode(bytes)
}

/**
 * The input as the route's validator will see it (the same JSON body, read from a copy of the request, and the
 * same schema), when it can be had before the guard: a POST body within `maxBytes` that validates. Otherwise (a
 * GET, an input answered 400 after the authentication, a body answered 413) there is none.
 */
async function earlyInput(c: Context<AppEnv>, proc: AnyProcedure, maxBytes: number): Promise<unknown> {
  const declared = c.req.header('content-length')
  if (c.req.method !== 'POST' || Number(declared ?? 0) > maxBytes) return undefined
  const body = await boundedBody(c.req.raw, maxBytes)
  if (body === undefined) return undefined
  const parsed = proc.input.safeParse(JSON.parse(body))
  return parsed.success ? parsed.data : undefined
}

/**
 * Sends the procedure's prefetch reads at once, to run beside the caller's authentication (one round trip for
 * both). Never rejects: reads that could not start or failed are sent again before the handler, whose error
 * that then is.
 */
export function startPrefetch(
  c: Context<AppEnv>,
  proc: AnyProcedure,
  maxBytes: number,
): Promise<readonly unknown[] | null> | null {
  if (!proc.prefetch || (proc.permission !== 'public' && !presentsCredentials(c))) return null
  const prefetch = proc.prefetch
  return earlyInput(c, proc, maxBytes)
    .then((input) => (input === undefined ? null : callDb(c).batch(prefetch(input, callDb(c)).reads)))
    .catch(() => null)
}

/** Hands the reads to the handler's turn: call only once the caller was authenticated and authorised. */
export function keepPrefetch(c: Context<AppEnv>, reads: Promise<readonly unknown[] | null> | null): void {
  if (reads) authorised.set(c, reads)
}

/**
 * What the handler gets of its prefetch: the reads sent beside the authentication when there were any, else
 * sent now. Called after every check of the caller, the site token's own site included.
 */
export async function prefetched(c: Context<AppEnv>, proc: AnyProcedure, input: unknown): Promise<unknown> {
  if (!proc.prefetch) return undefined
  const prefetch = proc.prefetch(input, callDb(c))
  const results = (await authorised.get(c)) ?? (await callDb(c).batch(prefetch.reads))
  return prefetch.decode(results)
}

import type { Context } from 'hono'
import { auditInsert } from '../audit/record'
import { clientAddress } from '../auth/client-address'
import type { Principal } from '../auth/principal'
import { forgetPrincipals } from '../auth/principal-cache'
import type { BatchItem } from '../db/client'
import { forgetReplicaCopies, replicaCopy } from '../db/replica-copy'
import { callDb } from '../db/session'
import type { AppEnv } from '../env'
import type { AnyProcedure, ProcedureContext } from './define'
import { forbidden } from './errors'
import { panelOrigin } from './guard'
import { prefetched } from './prefetch'
import { ifNoneMatchHits, RenderedOutput } from './rendered'
import { ResponseHeaders } from './response-headers'
import { EVENT_STREAM, StreamedOutput } from './streamed'

/** Calls a procedure's handler with its validated input and returns the checked output as JSON. */
export async function execute(c: Context<AppEnv>, name: string, proc: AnyProcedure, input: unknown) {
  const principal = c.get('principal')
  const requestId = c.get('requestId')
  const d1 = c.get('d1')
  let responseHeaders: ResponseHeaders | undefined
  let committed = false
  // What only some handlers use is made when first read: a cached or D1-free answer never pays for it.
  const ctx: ProcedureContext = {
    env: c.env,
    get db() {
      return callDb(c)
    },
    d1,
    principal,
    requestId,
    get origin() {
      return panelOrigin(c)
    },
    get clientAddress() {
      return clientAddress(c.req.raw, c.env)
    },
    get responseHeaders() {
      responseHeaders ??= new ResponseHeaders()
      return responseHeaders
    },
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    replicaCopy: (key, read) => replicaCopy({ incoming: c.get('bookmark'), session: d1 }, key, read),
    async commit(writes, target = {}) {
      if (committed) throw new Error(`${name} committed twice`)
      committed = true
      const items: BatchItem[] = [...writes]
      if (proc.audit) {
        items.push(auditInsert(callDb(c), { action: proc.audit, principal, requestId, ...target }))
      }
      const [first, ...rest] = items
      const results = first ? await callDb(c).batch([first, ...rest]) : []
      // A revocation, a role change, a removed user or site: no principal read before it outlives it here.
      forgetPrincipals()
      forgetReplicaCopies()
      return results
    },
  }
  assertOwnSite(proc, principal, input)
  const result = await proc.handler(input, ctx, await prefetched(c, proc, input))
  if (proc.kind === 'mutation' && !committed) throw new Error(`mutation ${name} returned without committing`)
  if (result instanceof RenderedOutput) return sendRendered(c, result, responseHeaders)
  if (result instanceof StreamedOutput) return sendStream(c, result, responseHeaders)
  const output = proc.trustedOutput ? result : proc.output.parse(result)
  appendHeaders(c, responseHeaders)
  return c.json(output as object, 200)
}

// Checked before the handler runs, so a site token naming another site reads and writes nothing.
function assertOwnSite(proc: AnyProcedure, principal: Principal, input: unknown): void {
  if (!proc.siteScoped || principal.kind !== 'site-token') return
  const siteId = (input as { siteId?: unknown }).siteId
  if (siteId !== principal.siteId) throw forbidden('a site token may act only on its own site')
}

/** The headers a handler set, if it set any. */
function appendHeaders(c: Context<AppEnv>, headers: ResponseHeaders | undefined): void {
  if (headers) for (const [key, value] of headers.entries()) c.header(key, value, { append: true })
}

function sendRendered(
  c: Context<AppEnv>,
  rendered: RenderedOutput<unknown>,
  headers: ResponseHeaders | undefined,
) {
  appendHeaders(c, headers)
  if (rendered.etag !== null) {
    c.header('etag', rendered.etag)
    if (ifNoneMatchHits(c.req.header('if-none-match'), rendered.etag)) return c.body(null, 304)
  }
  return c.body(rendered.json, 200, { 'content-type': 'application/json' })
}

async function sendStream(
  c: Context<AppEnv>,
  streamed: StreamedOutput<unknown>,
  headers: ResponseHeaders | undefined,
) {
  const body = await streamed.open(c.req.header('last-event-id') ?? null)
  appendHeaders(c, headers)
  // `x-accel-buffering: no` keeps nginx-style proxies from holding frames back.
  return c.body(body, 200, { 'content-type': EVENT_STREAM, 'x-accel-buffering': 'no' })
}

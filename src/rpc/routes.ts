import { createRoute, type RouteConfig, z } from '@hono/zod-openapi'
import { META_CORS_HEADERS } from '../changelog/meta-http'
import { BOOKMARK_HEADER, BOOKMARK_PATTERN } from '../db/bookmark'
import type { AnyProcedure } from './define'
import { ERROR_CODES, type ErrorCode, ProblemSchema } from './errors'
import { EVENT_STREAM } from './streamed'

/** What the transport itself can answer: a GET takes no body, so it has no invalid_json, 413 or 415. */
const TRANSPORT_ERRORS: Readonly<Record<'get' | 'post', readonly ErrorCode[]>> = {
  post: ['validation_failed', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'internal'],
  get: ['validation_failed', 'internal'],
}
const AUTH_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'forbidden']

/** The tag every RPC operation carries, so the REST areas stay readable in documentation viewers. */
export const RPC_TAG = 'rpc'

/** Every error code a procedure can answer with on a face: the transport's, authentication's, and its own. */
export function procedureErrors(proc: AnyProcedure, method: 'get' | 'post' = 'post'): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    ...TRANSPORT_ERRORS[method],
    ...(proc.permission === 'public' ? [] : AUTH_ERRORS),
    // The Origin check refuses a cross-site change even where no permission is needed (a sign-in).
    ...(proc.kind === 'mutation' ? (['forbidden'] as const) : []),
    ...(proc.errors ?? []),
  ])
  return [...codes]
}

interface HeaderObject {
  description: string
  required: boolean
  schema: { type: 'string' | 'integer' }
}
type Headers = Record<string, HeaderObject>

const header = (description: string, type: 'string' | 'integer' = 'string'): HeaderObject => ({
  description,
  required: true,
  schema: { type },
})

/** Carried by every answer of the panel. */
const EVERY_RESPONSE: Headers = {
  'x-request-id': header(
    'The panel’s own id for this request (an incoming x-request-id is ignored); it is in every audit entry and error body.',
  ),
}
const BOOKMARK_TEXT =
  'A D1 bookmark: where this call left the database. Send it back on later calls (`x-d1-bookmark` request header) to read at least what this call wrote or read, from whichever replica answers'
/** Carried by a procedure's answer whenever it read or wrote D1, or its request sent a bookmark. */
const BOOKMARK_RESPONSE: Headers = {
  [BOOKMARK_HEADER]: { description: BOOKMARK_TEXT, required: false, schema: { type: 'string' } },
}
/** Documented only: the session middleware reads it before validation (src/db/session.ts). */
const BOOKMARK_PARAMETER = {
  in: 'header' as const,
  name: BOOKMARK_HEADER,
  required: false,
  description:
    'The newest `x-d1-bookmark` an earlier answer carried: reads start at a replica at least that new. Anything but a bookmark as answered is 400 (`validation_failed`, naming the header)',
  schema: { type: 'string' as const, pattern: BOOKMARK_PATTERN, maxLength: 59 },
}

/** By status: what the transport adds to that answer. */
const BY_STATUS: Readonly<Record<number, Headers>> = {
  401: { 'WWW-Authenticate': header('`Bearer`: send an API token, or sign in for a session cookie') },
  429: { 'Retry-After': header('Seconds to wait before trying again', 'integer') },
}

function corsHeaders(path: string): Headers {
  if (!path.startsWith('/api/v1/meta/')) return {}
  return Object.fromEntries(
    Object.entries(META_CORS_HEADERS).map(([name, value]) => [name, header(`\`${value}\``)]),
  )
}

/** The documented problem answers for these codes, each with the headers every answer carries. */
export function problemResponses(codes: ErrorCode[]) {
  return errorResponses(codes, EVERY_RESPONSE)
}

function errorResponses(codes: ErrorCode[], common: Headers) {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of codes) {
    const status = ERROR_CODES[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      {
        description: group.map((code) => `\`${code}\`: ${ERROR_CODES[code].title}`).join('; '),
        headers: { ...common, ...BY_STATUS[status] },
        content: { 'application/problem+json': { schema: ProblemSchema } },
      },
    ]),
  )
}

/** The documented extras of a procedure: its success headers, and its bodiless responses carrying them. */
function documentedResponses(proc: AnyProcedure, common: Headers) {
  const declared = Object.entries(proc.documented?.headers ?? {})
  const headers: Headers = {
    ...common,
    ...Object.fromEntries(declared.map(([name, description]) => [name, header(description)])),
  }
  const others = Object.entries(proc.documented?.responses ?? {}).map(([status, description]) => [
    status,
    { description, headers },
  ])
  return { headers, others: Object.fromEntries(others) }
}

export interface RouteTarget {
  method: 'get' | 'post'
  path: string
  operationId: string
  /** The RPC face, documented under its own tag. */
  rpc: boolean
}

// A documented 304 means the procedure answers conditional requests.
const ConditionalHeadersSchema = z.object({
  'if-none-match': z.string().optional().openapi({
    description: 'An ETag from an earlier answer; when it still matches, the answer is 304 without a body',
  }),
})

// A reopened stream names the last event it saw; EventSource sends this header by itself.
const ResumeHeadersSchema = z.object({
  'last-event-id': z.string().max(64).optional().openapi({
    description:
      'The `id` of the last event a reopened stream saw: the stream resumes after it (what was missed is sent first); an id that is unknown or too old gets a fresh snapshot',
  }),
})

function headersOf(proc: AnyProcedure) {
  if (proc.stream) return ResumeHeadersSchema
  return proc.documented?.responses?.[304] ? ConditionalHeadersSchema : undefined
}

function requestOf(proc: AnyProcedure, method: 'get' | 'post'): RouteConfig['request'] {
  const headers = headersOf(proc)
  if (method === 'post')
    return { body: { content: { 'application/json': { schema: proc.input } }, required: true }, headers }
  const query = proc.rest?.query ?? proc.input
  if (!(query instanceof z.ZodObject)) throw new Error('a GET procedure takes an object input')
  return { query, headers }
}

/** The 200's body: JSON, or for a stream procedure Server-Sent Events whose every event's data is `output`. */
function successContent(proc: AnyProcedure) {
  if (proc.stream) return { [EVENT_STREAM]: { schema: proc.output } }
  return { 'application/json': { schema: proc.output } }
}

/** The route object for one face of a procedure; the same object serves requests and feeds the OpenAPI document. */
export function procedureRoute(name: string, proc: AnyProcedure, target: RouteTarget) {
  const isPublic = proc.permission === 'public'
  const common = { ...EVERY_RESPONSE, ...BOOKMARK_RESPONSE, ...corsHeaders(target.path) }
  const documented = documentedResponses(proc, common)
  const face = target.rpc ? ' RPC face: the same body and answers as the REST operation.' : ''
  return createRoute({
    method: target.method,
    path: target.path,
    operationId: target.operationId,
    tags: [target.rpc ? RPC_TAG : (name.split('.')[0] ?? name)],
    summary: proc.summary,
    description: `Procedure \`${name}\`. Permission: ${isPublic ? 'none (public)' : `\`${proc.permission}\``}.${face}`,
    'x-permission': proc.permission,
    'x-procedure': name,
    security: isPublic ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }],
    parameters: [BOOKMARK_PARAMETER],
    request: requestOf(proc, target.method),
    responses: {
      200: {
        description: proc.stream
          ? 'Success: a Server-Sent Events stream; the schema’s `contentSchema` is the JSON `data` of each event'
          : 'Success',
        headers: documented.headers,
        content: successContent(proc),
      },
      ...documented.others,
      ...errorResponses(procedureErrors(proc, target.method), common),
    },
  })
}

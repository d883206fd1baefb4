import { createRoute, type RouteConfig, z } from '@hono/zod-openapi'
import type { AnyProcedure } from './define'
import { ERROR_CODES, type ErrorCode, ProblemSchema } from './errors'

const TRANSPORT_ERRORS: readonly ErrorCode[] = [
  'validation_failed',
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
  'internal',
]
const AUTH_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'forbidden']

/** Every error code a procedure can answer with: the transport's, authentication's, and its own. */
export function procedureErrors(proc: AnyProcedure): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    ...TRANSPORT_ERRORS,
    ...(proc.permission === 'public' ? [] : AUTH_ERRORS),
    ...(proc.errors ?? []),
  ])
  return [...codes]
}

function errorResponses(codes: ErrorCode[]) {
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
        content: { 'application/problem+json': { schema: ProblemSchema } },
      },
    ]),
  )
}

/** The documented extras of a procedure: its header objects, and its bodiless responses carrying them. */
function documentedResponses(proc: AnyProcedure) {
  const declared = Object.entries(proc.documented?.headers ?? {})
  const headers = declared.length
    ? Object.fromEntries(
        declared.map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
      )
    : undefined
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
  /** RPC paths serve requests but stay out of the REST document. */
  hide: boolean
}

function requestOf(proc: AnyProcedure, method: 'get' | 'post'): RouteConfig['request'] {
  if (method === 'post')
    return { body: { content: { 'application/json': { schema: proc.input } }, required: true } }
  if (!(proc.input instanceof z.ZodObject)) throw new Error('a GET procedure takes an object input')
  return { query: proc.input }
}

/** The route object for one face of a procedure; the same object serves requests and feeds the OpenAPI document. */
export function procedureRoute(name: string, proc: AnyProcedure, target: RouteTarget) {
  const isPublic = proc.permission === 'public'
  const documented = documentedResponses(proc)
  return createRoute({
    method: target.method,
    path: target.path,
    hide: target.hide,
    operationId: target.operationId,
    tags: [name.split('.')[0] ?? name],
    summary: proc.summary,
    description: `Procedure \`${name}\`. Permission: ${isPublic ? 'none (public)' : `\`${proc.permission}\``}.`,
    'x-permission': proc.permission,
    'x-procedure': name,
    security: isPublic ? [] : [{ bearerAuth: [] }, { sessionCookie: [] }],
    request: requestOf(proc, target.method),
    responses: {
      200: {
        description: 'Success',
        headers: documented.headers,
        content: { 'application/json': { schema: proc.output } },
      },
      ...documented.others,
      ...errorResponses(procedureErrors(proc)),
    },
  })
}

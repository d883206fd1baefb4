import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { AppEnv } from '../env'
import { AppError, problemBody } from './errors'

/** Maps anything thrown to problem+json. Only AppError details reach the client; a 5xx never shows internals. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error
  // A check-then-insert that lost a race to a concurrent writer lands on the unique index: that is a conflict.
  if (
    error instanceof Error &&
    /UNIQUE constraint failed/.test(`${error.message} ${String(error.cause ?? '')}`)
  ) {
    return new AppError(
      'conflict',
      'a concurrent change took this name or key first; read the current state and retry',
    )
  }
  // A create whose parent was removed meanwhile, or a remove whose child was created meanwhile, lands on a
  // foreign key: the change conflicts with the current state.
  if (
    error instanceof Error &&
    /FOREIGN KEY constraint failed/.test(`${error.message} ${String(error.cause ?? '')}`)
  ) {
    return new AppError(
      'conflict',
      'a concurrent change removed what this refers to, or added something that still uses it; read the current state and retry',
    )
  }
  if (error instanceof HTTPException) {
    if (error.status === 400) return new AppError('invalid_json', 'the request body is not valid JSON')
    if (error.status === 413) return new AppError('payload_too_large', 'the request body is too large')
    if (error.status === 415)
      return new AppError('unsupported_media_type', 'send the body as application/json')
  }
  return new AppError('internal', 'an internal error occurred; quote the request id when reporting it')
}

/** Sends an AppError as problem+json with the headers its status calls for. */
export function problemResponse(c: Context<AppEnv>, error: AppError): Response {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' }
  if (error.extra.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(error.extra.retryAfterSeconds)
  // RFC 9110 §11.6.1: a 401 names the scheme that would be accepted (RFC 6750 §3 for bearer tokens).
  if (error.status === 401) headers['www-authenticate'] = 'Bearer'
  return c.body(JSON.stringify(problemBody(error, c.get('requestId'))), error.status as 400, headers)
}

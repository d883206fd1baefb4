import type { ErrorCode } from './procedures.ts'

/**
 * Codes any call can end with besides its procedure's own: the transport's, authentication's (a public
 * mutation still meets the Origin check), `procedure_not_found` from a panel older than this client, and
 * `unknown` for an answer that is not the panel's problem+json (a proxy's error page).
 */
export const COMMON_ERROR_CODES = [
  'validation_failed',
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
  'internal',
  'unauthenticated',
  'forbidden',
  'procedure_not_found',
  'unknown',
] as const satisfies readonly (ErrorCode | 'unknown')[]

export type CommonErrorCode = (typeof COMMON_ERROR_CODES)[number]

import { z } from '@hono/zod-openapi'

/** The one table of error codes: each code's HTTP status and title, used by the runtime and the OpenAPI document. */
export const ERROR_CODES = {
  validation_failed: { status: 400, title: 'The input is not valid' },
  invalid_json: { status: 400, title: 'The request body is not valid JSON' },
  unauthenticated: { status: 401, title: 'Authentication is required' },
  forbidden: { status: 403, title: 'The principal lacks the permission' },
  not_found: { status: 404, title: 'Not found' },
  procedure_not_found: { status: 404, title: 'No such procedure' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  collision: { status: 409, title: 'The name is already in use elsewhere' },
  site_has_no_target: { status: 409, title: "The site's node has nothing to point a hostname at" },
  payload_too_large: { status: 413, title: 'The request body is larger than 64 KiB' },
  unsupported_media_type: { status: 415, title: 'The request body must be application/json' },
  limit_reached: { status: 422, title: 'A cap on how many hostnames a site or node holds is reached' },
  out_of_range: { status: 422, title: 'The window lies outside the history the panel keeps' },
  unprocessable: { status: 422, title: 'The input is well-formed but does not fit the rest of the resource' },
  invalid_reference: {
    status: 422,
    title: 'The input names something that does not belong where it is used',
  },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  upstream_failed: { status: 502, title: 'A service the panel depends on failed' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export interface Issue {
  path: string
  message: string
}

/** The one error type handlers throw; the transport turns it into problem+json. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { issues?: Issue[]; retryAfterSeconds?: number } = {},
  ) {
    super(detail)
  }

  get status(): number {
    return ERROR_CODES[this.code].status
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} was not found`)
export const conflict = (detail: string) => new AppError('conflict', detail)
export const forbidden = (detail: string) => new AppError('forbidden', detail)
export const unauthenticated = (detail: string) => new AppError('unauthenticated', detail)
export const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path}: ${message}`, { issues: [{ path, message }] })
/** A well-formed input naming something that exists but does not belong here (a probe a page does not list). */
export const invalidReference = (path: string, message: string) =>
  new AppError('invalid_reference', `${path}: ${message}`, { issues: [{ path, message }] })

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    requestId: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem')
export type Problem = z.infer<typeof ProblemSchema>

/** Builds the RFC 9457 body for an error. */
export function problemBody(error: AppError, requestId: string): Problem {
  return {
    type: `urn:hosting-panel:problem:${error.code}`,
    title: ERROR_CODES[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
    ...(error.extra.issues ? { issues: error.extra.issues } : {}),
  }
}

/** A request part that failed its schema: 400 `validation_failed`, naming each field and why. */
export function validationFailed(error: z.ZodError): AppError {
  const issues = issuesFromZod(error)
  const summary = issues.map((issue) => `${issue.path || '(body)'}: ${issue.message}`).join('; ')
  return new AppError('validation_failed', summary, { issues })
}

/** Turns zod issues into `{ path, message }`, one per unknown field so a typo is named. */
export function issuesFromZod(error: z.ZodError): Issue[] {
  return flatIssues(error.issues, [])
}

function flatIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): Issue[] {
  return issues.flatMap((issue) => {
    const at = [...prefix, ...issue.path]
    const base = at.map(String).join('.')
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: base ? `${base}.${key}` : key, message: 'unknown field' }))
    }
    const closest = issue.code === 'invalid_union' ? closestOption(issue.errors) : undefined
    if (closest) return flatIssues(closest, at)
    return [{ path: base, message: issue.message }]
  })
}

/**
 * Where every option of a union failed, the failures of the options that came closest (the fewest issues, then
 * the fewest unknown fields), when they all say the same: a probe config patch with one value out of range names
 * that key. Options that disagree (`"x"` is neither an IPv4 nor an IPv6 address) leave the union's own issue.
 */
function closestOption(
  options: readonly (readonly z.core.$ZodIssue[])[],
): readonly z.core.$ZodIssue[] | undefined {
  const unknown = (issues: readonly z.core.$ZodIssue[]) =>
    issues.filter((issue) => issue.code === 'unrecognized_keys').length
  const said = (issues: readonly z.core.$ZodIssue[]) => JSON.stringify(flatIssues(issues, []))
  const failed = options.filter((issues) => issues.length > 0)
  const fewest = Math.min(...failed.map((issues) => issues.length))
  const fewestUnknown = Math.min(...failed.filter((i) => i.length === fewest).map(unknown))
  const closest = failed.filter((issues) => issues.length === fewest && unknown(issues) === fewestUnknown)
  const [first] = closest
  return first && closest.every((issues) => said(issues) === said(first)) ? first : undefined
}

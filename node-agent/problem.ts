import type { ServerResponse } from 'node:http'
import type { Issue } from './validate-state.ts'

/** An answer the agent refuses with: status, a short code, and the detail in the agent's words. */
export class AgentProblem extends Error {
  readonly status: number
  readonly code: string
  readonly issues: Issue[] | undefined
  /** Members the problem adds for the caller's code (`appliedVersion` of a version mismatch). */
  readonly extensions: Record<string, unknown>

  constructor(
    status: number,
    code: string,
    detail: string,
    issues?: Issue[],
    extensions: Record<string, unknown> = {},
  ) {
    super(detail)
    this.status = status
    this.code = code
    this.issues = issues
    this.extensions = extensions
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

/** Writes an RFC 9457 problem+json answer. */
export function sendProblem(response: ServerResponse, problem: AgentProblem): void {
  const body = {
    type: `urn:hosting-panel:agent-problem:${problem.code}`,
    title: TITLES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    ...(problem.issues ? { issues: problem.issues } : {}),
    ...problem.extensions,
  }
  response.writeHead(problem.status, {
    'content-type': 'application/problem+json',
    'cache-control': 'no-store',
  })
  response.end(JSON.stringify(body))
}

/** Writes a 200 JSON answer. */
export function sendJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  response.end(JSON.stringify(body))
}

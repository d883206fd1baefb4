import { createClient, PanelError, type ProblemDetails } from 'hosting-panel-api/client'

/** The panel's typed client, signed in by the session cookie (same origin). */
export const api = createClient({ baseUrl: window.location.origin })

export type Api = typeof api

/** The panel's problem behind an error, or null for anything else (a network failure). */
export function problemOf(error: unknown): ProblemDetails | null {
  return error instanceof PanelError ? error.problem : null
}

/** One line for people: the problem's detail, or the error's message. */
export function errorText(error: unknown): string {
  const problem = problemOf(error)
  if (problem) return problem.detail
  return error instanceof Error ? error.message : String(error)
}

/** The message the panel gave for one input field (`name`, `config.intervalSeconds`), if any. */
export function fieldError(error: unknown, field: string): string | null {
  const issues = problemOf(error)?.issues ?? []
  return issues.find((issue) => issue.path === field)?.message ?? null
}

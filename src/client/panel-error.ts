import { PROCEDURE_NAME } from './procedure-name.ts'
import type { ErrorCode } from './procedures.ts'
import type { ErrorCodeOf } from './types.ts'

/** A code in a PanelError: the server's table, or `unknown` when the answer was not the panel's problem+json. */
export type PanelErrorCode = ErrorCode | 'unknown'

export interface ProblemDetails<C extends string = PanelErrorCode> {
  type: string
  title: string
  status: number
  detail: string
  code: C
  /** The panel's request id, to quote in a bug report; empty when the answer did not come from the panel. */
  requestId: string
  issues?: { path: string; message: string }[]
}

/** Thrown for every non-2xx answer; carries the problem+json body. */
export class PanelError extends Error {
  // Plain fields, not parameter properties: Node runs this file by stripping types, which allows no emitted syntax.
  readonly status: number
  readonly problem: ProblemDetails
  /** The dotted name of the procedure that failed, for example `nodes.remove`. */
  readonly procedure: string

  constructor(procedure: string, status: number, problem: ProblemDetails) {
    super(`${problem.code}: ${problem.detail}`)
    this.name = 'PanelError'
    this.status = status
    this.problem = problem
    this.procedure = procedure
  }
}

/**
 * True when `error` is a PanelError; given a procedure (`client.x.y`), only when it is that procedure's, which
 * narrows `problem.code` to the codes it can answer. Never throws, whatever plain JavaScript passes.
 */
export function isPanelError(error: unknown): error is PanelError
export function isPanelError<F extends object>(
  error: unknown,
  procedure: F,
): error is PanelError & { readonly problem: ProblemDetails<ErrorCodeOf<F>> }
export function isPanelError(error: unknown, procedure?: unknown): boolean {
  if (!(error instanceof PanelError)) return false
  if (procedure === undefined) return true
  if ((typeof procedure !== 'object' && typeof procedure !== 'function') || procedure === null) return false
  return error.procedure === Reflect.get(procedure, PROCEDURE_NAME)
}

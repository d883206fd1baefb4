import type { CommonErrorCode } from './common-codes.ts'

// Never present at runtime: it only carries a procedure's error codes in its type.
declare const errorCodes: unique symbol

/** One procedure as the registry describes it to the client. */
export interface ProcedureShape {
  input: unknown
  output: unknown
  errors: string
}

type Call<I, O> = Record<never, never> extends I ? (input?: I) => Promise<O> : (input: I) => Promise<O>

/** A procedure as the client calls it; a procedure whose input has no required field takes no argument. */
export type Procedure<S extends ProcedureShape> = Call<S['input'], S['output']> & {
  readonly [errorCodes]?: S['errors'] | CommonErrorCode
}

/** The client's shape: one async function per procedure, nested by dotted name. */
export type ClientOf<T> = {
  [K in keyof T]: T[K] extends ProcedureShape ? Procedure<T[K]> : ClientOf<T[K]>
}

/** The codes a client procedure can fail with: `ErrorCodeOf<typeof client.nodes.remove>`. */
export type ErrorCodeOf<F> = F extends { readonly [errorCodes]?: infer C } ? Extract<C, string> : never

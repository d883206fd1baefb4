import type { CommonErrorCode } from './common-codes.ts'

// Never present at runtime: it only carries a procedure's error codes in its type.
declare const errorCodes: unique symbol

/** One procedure as the registry describes it to the client. */
export interface ProcedureShape {
  input: unknown
  output: unknown
  errors: string
  /** Present on procedures answered by a Server-Sent Events stream. */
  stream?: true
}

type Call<I, O> = Record<never, never> extends I ? (input?: I) => Promise<O> : (input: I) => Promise<O>

/** A procedure as the client calls it; a procedure whose input has no required field takes no argument. */
export type Procedure<S extends ProcedureShape> = Call<S['input'], S['output']> & {
  readonly [errorCodes]?: S['errors'] | CommonErrorCode
}

/** One event of a stream procedure: its data, and the event id a reopened stream resumes after. */
export type StreamFrame<O> = O & { id: string }

export interface StreamOptions {
  /** Ends the stream (the iterator then finishes without an error). */
  signal?: AbortSignal | undefined
  /** Resume after this frame id: only what was missed since is sent (a fresh snapshot when it is too old). */
  lastEventId?: string | undefined
}

type StreamCall<I, O> =
  Record<never, never> extends I
    ? (input?: I, options?: StreamOptions) => AsyncGenerator<StreamFrame<O>, void, undefined>
    : (input: I, options?: StreamOptions) => AsyncGenerator<StreamFrame<O>, void, undefined>

/**
 * A stream procedure as the client calls it: an async iterator of its frames, opened on the first `next()`
 * (which throws the PanelError of a refused call); it ends when the panel closes the stream, to be reopened with
 * `lastEventId`.
 */
export type StreamProcedure<S extends ProcedureShape> = StreamCall<S['input'], S['output']> & {
  readonly [errorCodes]?: S['errors'] | CommonErrorCode
}

/** The client's shape: one async function per procedure (an iterator for streams), nested by dotted name. */
export type ClientOf<T> = {
  [K in keyof T]: T[K] extends ProcedureShape
    ? T[K] extends { stream: true }
      ? StreamProcedure<T[K]>
      : Procedure<T[K]>
    : ClientOf<T[K]>
}

/** The codes a client procedure can fail with: `ErrorCodeOf<typeof client.nodes.remove>`. */
export type ErrorCodeOf<F> = F extends { readonly [errorCodes]?: infer C } ? Extract<C, string> : never

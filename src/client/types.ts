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

export interface StreamOptions {
  /** Ends the stream (the iterator then finishes without an error). */
  signal?: AbortSignal | undefined
  /** Resume after this event id: only what was missed since is sent (a fresh snapshot when it is too old). */
  lastEventId?: string | undefined
  /** Hears the id to resume after (pass it back as `lastEventId`), once the events up to it were taken. */
  onEventId?: ((id: string) => void) | undefined
}

type StreamCall<I, O> =
  Record<never, never> extends I
    ? (input?: I, options?: StreamOptions) => AsyncGenerator<O, void, undefined>
    : (input: I, options?: StreamOptions) => AsyncGenerator<O, void, undefined>

/**
 * A stream procedure as the client calls it: an async iterator of its events' data, opened on the first `next()`
 * (which throws the PanelError of a refused call); it ends when the panel closes the stream, to be reopened with
 * the `lastEventId` that `onEventId` last heard.
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

/** The part of a fetch Response the client reads, so any fetch (Node's, a browser's, a Worker's) fits. */
export interface FetchResponse {
  ok: boolean
  status: number
  statusText: string
  headers: { get(name: string): string | null }
  text(): Promise<string>
  /** Read by stream procedures only. */
  body?: ReadableStream<Uint8Array> | null
}

export type FetchLike = (
  input: string,
  init: { method: 'POST' | 'GET'; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<FetchResponse>

import type { z } from '@hono/zod-openapi'
import type { Permission } from '../auth/permissions'
import type { Principal } from '../auth/principal'
import type { BatchItem, D1Handle, Db } from '../db/client'
import type { Env } from '../env'
import type { ErrorCode } from './errors'
import type { RenderedOutput } from './rendered'
import type { ResponseHeaders } from './response-headers'
import type { StreamedOutput } from './streamed'

export type Reads = readonly [BatchItem, ...BatchItem[]]

/** A procedure's reads decided by its input alone, and what its handler makes of their results. */
export interface Prefetch<T> {
  reads: Reads
  decode(results: readonly unknown[]): T
}

/** Who may call: a permission, any authenticated principal, a signed-in user's session only, or anyone. */
export type Access = Permission | 'authenticated' | 'session' | 'public'

export interface AuditTarget {
  /** Replaces the procedure's action when it has two outcomes (probes.setEnabled: probe.pause or probe.resume). */
  action?: string
  targetId?: string | null
  outcome?: 'success' | 'failure'
  detail?: Record<string, unknown>
}

/** What a handler gets besides its validated input. It never sees Hono's context. */
export interface ProcedureContext {
  env: Env
  /** Drizzle over `d1`. */
  db: Db
  /**
   * The call's D1 session: a query's reads go to the nearest replica that is as new as the caller's bookmark. Read
   * through this (or `db`), never `env.DB`, which always goes to the primary.
   */
  d1: D1Handle
  principal: Principal
  requestId: string
  /** The panel's own origin (scheme, host and port). */
  origin: string
  /** The caller's address as Cloudflare's edge reports it (`cf-connecting-ip`); null off the edge or when absent. */
  clientAddress: string | null
  /** Headers added to the answer (made on first use). */
  responseHeaders: ResponseHeaders
  waitUntil(promise: Promise<unknown>): void
  /**
   * A hot read answered from this isolate's copy (at most REPLICA_COPY_MS old, never older than the caller's
   * bookmark), else read on this call's session and kept. `key` names everything the answer depends on.
   */
  replicaCopy<T>(key: string, read: () => Promise<T>): Promise<T>
  /**
   * Runs the writes and the procedure's audit entry as one D1 batch, so both land or neither does.
   * Every mutation calls it exactly once. Answers the batch's results in the order of `writes` (a select placed
   * among them reads what the batch wrote), the audit entry's last.
   */
  commit(writes: BatchItem[], target?: AuditTarget): Promise<unknown[]>
}

export interface ProcedureDef<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  E extends ErrorCode = ErrorCode,
  P = unknown,
> {
  kind: 'query' | 'mutation'
  permission: Access
  summary: string
  input: I
  output: O
  /** Domain errors the handler may throw, beyond those the transport itself gives. */
  errors?: readonly E[]
  /**
   * One of the calls a site-bound token may make, for its own site only (the input's `siteId`); a site token
   * calling any other procedure, or naming another site, is 403.
   */
  siteScoped?: true
  /**
   * A dedicated REST route under /api/v1, served beside the fallback `POST /api/v1/<dotted/path>`. A GET route
   * reads `query` when given (a schema that coerces the query string's text into the input), else `input`.
   */
  rest?: { method: 'get' | 'post'; path: `/${string}`; query?: z.ZodObject }
  /** Answered by a Server-Sent Events stream (declare it with `streamProcedure`); `output` is one event's data. */
  stream?: true
  /**
   * The handler builds its output field by field from typed rows, so the transport sends it without the output
   * parse, which would hand it back unchanged (test/trusted-output.test.ts proves that for each such procedure).
   * Kept for hot reads whose answer has many rows or is otherwise cheap.
   */
  trustedOutput?: true
  /** Audit action written by `commit`; every mutation has one. */
  audit?: string
  /** For the OpenAPI document: what the transport sends besides the JSON body and the errors. */
  documented?: {
    /** Header name → what it carries, on the 200 and on every response listed below. */
    headers?: Readonly<Record<string, string>>
    /** Status → when it is answered, without a body. */
    responses?: Readonly<Record<number, string>>
  }
  /**
   * Reads decided by the input alone, sent beside the caller's authentication so they cost no round trip of their
   * own; the handler gets what `decode` made of them, and only once the caller was authorised (see
   * `src/rpc/prefetch.ts`). They never see the principal: a read that depends on who calls belongs in the handler.
   */
  prefetch?(input: z.output<I>, db: Db): Prefetch<P>
  // Method syntax keeps concrete procedures assignable to AnyProcedure.
  handler(
    input: z.output<I>,
    ctx: ProcedureContext,
    prefetched: P,
  ): Promise<z.input<O> | RenderedOutput<z.input<O>> | StreamedOutput<z.input<O>>>
}

/** Declares a procedure; the identity function that pins its types (the error codes too, for the typed client). */
export function procedure<
  I extends z.ZodType,
  O extends z.ZodType,
  E extends ErrorCode = never,
  P = undefined,
>(def: ProcedureDef<I, O, E, P>): ProcedureDef<I, O, E, P> {
  return def
}

/** Declares a query answered by a Server-Sent Events stream whose events' data is `output`. */
export function streamProcedure<I extends z.ZodType, O extends z.ZodType, E extends ErrorCode = never>(
  def: Omit<ProcedureDef<I, O, E>, 'kind' | 'stream' | 'handler'> & {
    handler(input: z.output<I>, ctx: ProcedureContext): Promise<StreamedOutput<z.input<O>>>
  },
): ProcedureDef<I, O, E> & { stream: true } {
  return { ...def, kind: 'query', stream: true }
}

export type AnyProcedure = ProcedureDef<z.ZodType, z.ZodType>

export interface RouterTree {
  readonly [key: string]: AnyProcedure | RouterTree
}

function isProcedure(node: AnyProcedure | RouterTree): node is AnyProcedure {
  return typeof (node as AnyProcedure).handler === 'function'
}

/** Flattens a router into dotted names: `{ nodes: { create } }` becomes `nodes.create`. */
export function flattenRouter(tree: RouterTree, prefix = ''): Map<string, AnyProcedure> {
  const out = new Map<string, AnyProcedure>()
  for (const [key, node] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key
    if (isProcedure(node)) out.set(name, node)
    else for (const [child, proc] of flattenRouter(node, name)) out.set(child, proc)
  }
  return out
}

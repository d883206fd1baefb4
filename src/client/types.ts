import type { z } from 'zod'
import type { ProcedureDef } from '../rpc/define'

/** A procedure whose input has no required field may be called without an argument. */
type Call<I, O> = Record<never, never> extends I ? (input?: I) => Promise<O> : (input: I) => Promise<O>

/** The client's shape, inferred from the registry: one async function per procedure, nested by dotted name. */
export type ClientOf<T> = {
  [K in keyof T]: T[K] extends ProcedureDef<infer I, infer O> ? Call<z.input<I>, z.output<O>> : ClientOf<T[K]>
}

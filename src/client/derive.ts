import type { z } from 'zod'
import type { ProcedureDef } from '../rpc/define'

/** The registry's procedures as plain shapes: what a caller sends, what it gets, and the codes it declares. */
export type ProceduresOf<T> = {
  [K in keyof T]: T[K] extends ProcedureDef<infer I, infer O, infer E>
    ? T[K] extends { stream: true }
      ? { input: z.input<I>; output: z.output<O>; errors: E; stream: true }
      : { input: z.input<I>; output: z.output<O>; errors: E }
    : ProceduresOf<T[K]>
}

import { and, eq, inArray } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import type { Env } from '../env'
import type { CustomHostnameRecord } from './rows'

export interface CustomHostnameWriteMessage {
  type: 'custom-hostname.write'
  id: string
  generation: number
}
export interface CustomHostnameRemoveMessage {
  type: 'custom-hostname.remove'
  id: string
  generation: number
  /** A remove of a removal-manual row: records whose writer is gone no longer hold the row. */
  recheck?: boolean
}
export type CustomHostnameMessage = CustomHostnameWriteMessage | CustomHostnameRemoveMessage

/** DNS attempts per remove (about an hour of backoff) before a passing error counts as final. */
export const MAX_DNS_ATTEMPTS = 8

/** Queues the job that carries a register or a remove out. */
export async function enqueueCustomHostnameJob(env: Env, message: CustomHostnameMessage): Promise<void> {
  await env.JOBS.sendBatch([{ body: message }])
}

/** The row a job is about, when it is still at the job's generation and in one of `states`. */
export async function rowFor(
  database: Db,
  message: CustomHostnameMessage,
  states: readonly CustomHostnameRecord['state'][],
): Promise<CustomHostnameRecord | null> {
  const [row] = await database
    .select()
    .from(customHostnames)
    .where(
      and(
        eq(customHostnames.id, message.id),
        eq(customHostnames.generation, message.generation),
        inArray(customHostnames.state, [...states]),
      ),
    )
  return row ?? null
}

/** Holds while the row is still at the generation the job read. */
export function current(row: CustomHostnameRecord) {
  return and(eq(customHostnames.id, row.id), eq(customHostnames.generation, row.generation))
}

export async function save(database: Db, writes: BatchItem[]): Promise<void> {
  const [first, ...rest] = writes
  if (first) await database.batch([first, ...rest])
}

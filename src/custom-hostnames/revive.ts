import { and, eq } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { conflict } from '../rpc/errors'
import type { CustomHostnameWriteMessage } from './jobs'

/**
 * An operator's jobs.retry of a write whose round failed: the row turns pending with a fresh round of tries, at
 * the same generation so the re-sent job is its own. A row registered again or removed since has its own round.
 */
export async function reviveCustomHostnameWrite(
  db: Db,
  message: CustomHostnameWriteMessage,
  now: Date,
): Promise<BatchItem[]> {
  const [row] = await db
    .select({ state: customHostnames.state, generation: customHostnames.generation })
    .from(customHostnames)
    .where(eq(customHostnames.id, message.id))
  if (!row) throw conflict('the custom hostname was removed meanwhile; nothing to retry')
  if (row.generation !== message.generation || row.state !== 'failed')
    throw conflict('the custom hostname was registered again or removed since; its newer round is under way')
  return [
    db
      .update(customHostnames)
      .set({ state: 'pending', attempts: 0, failureRemedy: null, failureDetail: null, updatedAt: now })
      .where(
        and(
          eq(customHostnames.id, message.id),
          eq(customHostnames.generation, message.generation),
          eq(customHostnames.state, 'failed'),
        ),
      ),
  ]
}

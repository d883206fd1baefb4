import { and, eq, notExists } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { zoneBoxSync } from '../../db/schema/dns-servers'
import { rowOf } from './state'

// How a zone-sync job settles its box. Every write holds only while the box's generation is the one the job
// read at its start: a change that marked the box since then settles it instead.

/** A job brought its box level with a synced box; false when a change marked the box since the job began. */
export async function markSynced(
  db: Db,
  zoneId: string,
  nodeId: string,
  generation: number,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(zoneBoxSync)
    .set({ state: 'synced', recordsCurrent: true, lastError: null, attempts: 0, updatedAt: now })
    .where(and(rowOf(zoneId, nodeId), eq(zoneBoxSync.generation, generation)))
    .returning({ nodeId: zoneBoxSync.nodeId })
  return rows.length > 0
}

/**
 * With no synced box left (a commit failed after a write, or every box missed an NS change), one box whose
 * records are current becomes the reference the others copy from. The check and the write are one statement,
 * so two jobs never both win.
 */
export async function claimReference(
  db: Db,
  zoneId: string,
  nodeId: string,
  generation: number,
  now: Date,
): Promise<boolean> {
  const other = alias(zoneBoxSync, 'other')
  const rows = await db
    .update(zoneBoxSync)
    .set({ state: 'synced', lastError: null, attempts: 0, updatedAt: now })
    .where(
      and(
        rowOf(zoneId, nodeId),
        eq(zoneBoxSync.generation, generation),
        eq(zoneBoxSync.recordsCurrent, true),
        notExists(
          db
            .select({ nodeId: other.nodeId })
            .from(other)
            .where(and(eq(other.zoneId, zoneId), eq(other.state, 'synced'))),
        ),
      ),
    )
    .returning({ nodeId: zoneBoxSync.nodeId })
  return rows.length > 0
}

/** A job failed; left alone when a change marked the box since the job began (that change settles it). */
export async function markCatchUpFailed(
  db: Db,
  zoneId: string,
  nodeId: string,
  generation: number,
  failure: { error: string; attempts: number; recordsCurrent: boolean },
  now: Date,
): Promise<void> {
  await db
    .update(zoneBoxSync)
    .set({
      state: 'failed',
      recordsCurrent: failure.recordsCurrent,
      lastError: failure.error,
      attempts: failure.attempts,
      updatedAt: now,
    })
    .where(and(rowOf(zoneId, nodeId), eq(zoneBoxSync.generation, generation)))
}

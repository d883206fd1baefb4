import { and, eq, inArray, sql } from 'drizzle-orm'
import type { BatchItem, Db } from '../../db/client'
import { zoneBoxSync } from '../../db/schema/dns-servers'
import type { LiveBox } from '../nameservers/box-clients'
import type { BoxWrite } from '../schemas'
import type { BoxOutcome } from './fan-out'
import { syncAfterFailure, type ZoneSyncJob } from './queue'

/** Each marked box's generation right after marking: a later write to its row only lands while it is unchanged. */
export type Marks = ReadonlyMap<string, number>

/** The sync row of one box for one zone. */
export function rowOf(zoneId: string, nodeId: string) {
  return and(eq(zoneBoxSync.zoneId, zoneId), eq(zoneBoxSync.nodeId, nodeId))
}

const raised = sql`${zoneBoxSync.generation} + 1`

/**
 * Marks the boxes pending and raises their generation before a change goes out, in a statement of its own:
 * should the commit that settles them fail after the boxes were written, they stay behind for the sweep instead
 * of claiming to be synced, and a job that copies meanwhile cannot call its box synced. `updatedAt` is left
 * alone so the sweep still sees how long a box has waited.
 */
export async function markBehind(db: Db, zoneId: string, boxes: readonly LiveBox[]): Promise<Marks> {
  if (boxes.length === 0) return new Map()
  const rows = await db
    .update(zoneBoxSync)
    .set({ state: 'pending', generation: raised })
    .where(
      and(
        eq(zoneBoxSync.zoneId, zoneId),
        inArray(
          zoneBoxSync.nodeId,
          boxes.map((box) => box.nodeId),
        ),
      ),
    )
    .returning({ nodeId: zoneBoxSync.nodeId, generation: zoneBoxSync.generation })
  return new Map(rows.map((row) => [row.nodeId, row.generation]))
}

/** Puts back the state each box had before a change that was refused; a box marked again since is left alone. */
export async function restoreStates(
  db: Db,
  zoneId: string,
  boxes: readonly LiveBox[],
  marks: Marks,
): Promise<void> {
  const writes = boxes.flatMap((box) => {
    const generation = marks.get(box.nodeId)
    if (generation === undefined) return []
    return [
      db
        .update(zoneBoxSync)
        .set({ state: box.state })
        .where(and(rowOf(zoneId, box.nodeId), eq(zoneBoxSync.generation, generation))),
    ]
  })
  const [first, ...rest] = writes
  if (first) await db.batch([first, ...rest])
}

export interface Settled {
  writes: BatchItem[]
  /** Boxes that missed the change. */
  behind: string[]
  /** Boxes that just fell behind: the chains to start (a box already behind has one, or the sweep). */
  jobs: ZoneSyncJob[]
  results: BoxWrite[]
}

export const NOTHING_SETTLED: Settled = { writes: [], behind: [], jobs: [], results: [] }

export function mergeSettled(all: readonly Settled[]): Settled {
  return {
    writes: all.flatMap((s) => s.writes),
    behind: all.flatMap((s) => s.behind),
    jobs: all.flatMap((s) => s.jobs),
    results: all.flatMap((s) => s.results),
  }
}

/**
 * The sync-row writes that settle a change, for the commit batch. A box that held the current records and took
 * it is synced; a box that was behind and took it stays as it was (its job still has older changes to copy); a
 * box that missed it is failed and its generation rises. A missing box keeps its records current only when
 * `keepRecordsOnMiss` (no box took a change the panel can redo, so the records themselves did not move). A
 * settle that finds its box marked again by a later change leaves it to that change.
 */
export function settleChange(
  db: Db,
  zoneId: string,
  outcomes: readonly BoxOutcome[],
  marks: Marks,
  now: Date,
  keepRecordsOnMiss: boolean,
): Settled {
  const settled: Settled = { writes: [], behind: [], jobs: [], results: [] }
  for (const { box, error } of outcomes) {
    const generation = marks.get(box.nodeId)
    if (generation === undefined) continue
    const row = rowOf(zoneId, box.nodeId)
    const result = { nodeId: box.nodeId, name: box.name, written: error === null, error }
    if (error === null) {
      // A failed box with current records missed only a derived change (the NS set); its job redoes it.
      const synced = box.recordsCurrent && box.state !== 'failed'
      settled.writes.push(
        db
          .update(zoneBoxSync)
          .set(
            synced ? { state: 'synced', lastError: null, attempts: 0, updatedAt: now } : { state: box.state },
          )
          .where(and(row, eq(zoneBoxSync.generation, generation))),
      )
      settled.results.push({ ...result, state: synced ? 'synced' : box.state })
      continue
    }
    settled.writes.push(
      db
        .update(zoneBoxSync)
        .set({
          state: 'failed',
          recordsCurrent: keepRecordsOnMiss && box.recordsCurrent,
          lastError: error,
          attempts: box.attempts + 1,
          generation: raised,
          updatedAt: now,
        })
        .where(row),
    )
    settled.behind.push(box.nodeId)
    if (box.recordsCurrent && box.state !== 'failed') settled.jobs.push(syncAfterFailure(zoneId, box.nodeId))
    settled.results.push({ ...result, state: 'failed' })
  }
  return settled
}

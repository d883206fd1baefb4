import type { Db } from '../../db/client'
import type { Env } from '../../env'
import type { LiveBox } from '../nameservers/box-clients'
import { type BoxOutcome, landedOnCurrent, refusal } from '../sync/fan-out'
import { enqueueZoneSync, syncNow } from '../sync/queue'
import { markBehind, restoreStates, type Settled, settleChange } from '../sync/state'

export type ApplyChange = (boxes: readonly LiveBox[]) => Promise<BoxOutcome[]>

/**
 * Writes a change a caller asked for to the zone's boxes. It counts only when a box holding the current records
 * took it: otherwise no box would be a trustworthy source for the others, so the boxes get their states back,
 * a box that applied it anyway is synced back at once, and the change is refused (see `refusal`). Returns the
 * sync-row writes for the caller's commit and the jobs to queue after it.
 */
export async function writeChange(
  db: Db,
  env: Env,
  zoneId: string,
  boxes: readonly LiveBox[],
  apply: ApplyChange,
  fieldFor: ((error: string) => string) | null,
  now: Date,
): Promise<Settled> {
  const marks = await markBehind(db, zoneId, boxes)
  const outcomes = await apply(boxes)
  if (outcomes.some(landedOnCurrent)) return settleChange(db, zoneId, outcomes, marks, now, false)
  await restoreStates(db, zoneId, boxes, marks)
  await enqueueZoneSync(
    env,
    outcomes.filter((o) => o.error === null).map((o) => syncNow(zoneId, o.box.nodeId)),
  )
  throw refusal(outcomes, fieldFor)
}

/**
 * Writes a change that follows from the panel's own state (the zone's NS set), which is never refused: a box
 * that missed it gets a job that redoes it. When no box with current records took it, their records did not
 * move, so they stay a valid source and the first job to run makes its box the reference.
 */
export async function pushChange(
  db: Db,
  zoneId: string,
  boxes: readonly LiveBox[],
  apply: ApplyChange,
  now: Date,
): Promise<Settled> {
  const marks = await markBehind(db, zoneId, boxes)
  const outcomes = await apply(boxes)
  return settleChange(db, zoneId, outcomes, marks, now, !outcomes.some(landedOnCurrent))
}

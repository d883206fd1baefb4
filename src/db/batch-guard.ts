import { type SQL, sql } from 'drizzle-orm'
import type { Db } from './client'

const GUARD_FAILED = 'batch guard: condition failed'

/**
 * A batch statement that fails, and so rolls back the whole batch (its audit entry included), unless
 * `condition` holds when it runs. SQLite has no RAISE outside triggers; a JSON path that is not one is the error
 * used instead (its message quotes the path, so `isGuardFailure` can tell it apart), picked at run time so the
 * planner cannot evaluate it ahead of the condition. A select (not a raw statement) because drizzle's D1 batch
 * binds parameters only to built queries.
 */
export function failUnless(db: Db, condition: SQL) {
  return db
    .select({ guard: sql`json_extract('{}', case when ${condition} then '$' else ${GUARD_FAILED} end)` })
    .from(sql`(select 1)`)
}

/** True when a batch failed because one of its `failUnless` guards did not hold (it lost a race). */
export function isGuardFailure(error: unknown): boolean {
  return error instanceof Error && `${error.message} ${String(error.cause ?? '')}`.includes(GUARD_FAILED)
}

/** Awaits a commit guarded by `failUnless`; a failed guard throws what `lost` answers (a 409, or a 404 if gone). */
export async function commitGuarded(
  commit: Promise<void>,
  lost: () => Promise<Error> | Error,
): Promise<void> {
  try {
    await commit
  } catch (error) {
    if (isGuardFailure(error)) throw await lost()
    throw error
  }
}

/** The updatedAt of an optimistic write: now, but always later than the value read, so a guard on it tells them apart. */
export function nextUpdatedAt(read: Date, now: Date): Date {
  return new Date(Math.max(now.getTime(), read.getTime() + 1))
}

import { type SQL, sql } from 'drizzle-orm'
import type { Db } from './client'

const GUARD = 'batch guard: '

/**
 * A batch statement that fails, and so rolls back the whole batch (its audit entry included), unless
 * `condition` holds when it runs. SQLite has no RAISE outside triggers; a JSON path that is not one is the error
 * used instead (its message quotes the path, so `isGuardFailure` can tell it apart, and a `name` tells one guard
 * of a batch from another), picked at run time so the planner cannot evaluate it ahead of the condition. A select
 * (not a raw statement) because drizzle's D1 batch binds parameters only to built queries.
 */
export function failUnless(db: Db, condition: SQL, name = 'condition failed') {
  return db
    .select({ guard: sql`json_extract('{}', case when ${condition} then '$' else ${GUARD + name} end)` })
    .from(sql`(select 1)`)
}

/** True when a batch failed because one of its `failUnless` guards (the one called `name`, when given) did not hold. */
export function isGuardFailure(error: unknown, name = ''): boolean {
  return error instanceof Error && `${error.message} ${String(error.cause ?? '')}`.includes(GUARD + name)
}

/**
 * Awaits a commit guarded by `failUnless` and answers its results; a failed guard throws what `lost` answers (a
 * 409, or a 404 if gone), given the batch's error so that it can tell which guard failed.
 */
export async function commitGuarded<T>(
  commit: Promise<T>,
  lost: (error: unknown) => Promise<Error> | Error,
): Promise<T> {
  try {
    return await commit
  } catch (error) {
    if (isGuardFailure(error)) throw await lost(error)
    throw error
  }
}

/** The updatedAt of an optimistic write: now, but always later than the value read, so a guard on it tells them apart. */
export function nextUpdatedAt(read: Date, now: Date): Date {
  return new Date(Math.max(now.getTime(), read.getTime() + 1))
}

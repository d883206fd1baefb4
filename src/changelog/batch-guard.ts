import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'

/**
 * A batch statement that fails, and so rolls back the whole batch (its audit entry included), unless
 * `condition` holds when it runs. SQLite has no RAISE outside triggers; json() of text that is not JSON is the
 * error used instead, picked at run time so the planner cannot evaluate it ahead of the condition. A select
 * (not a raw statement) because drizzle's D1 batch binds parameters only to built queries.
 */
export function failUnless(db: Db, condition: SQL) {
  return db
    .select({ guard: sql`json(case when ${condition} then '0' else 'batch guard: condition failed' end)` })
    .from(sql`(select 1)`)
}

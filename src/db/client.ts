import { drizzle } from 'drizzle-orm/d1'

/** The drizzle handle over the panel's D1 database. */
export function db(d1: D1Database) {
  return drizzle(d1)
}

export type Db = ReturnType<typeof db>
export type BatchItem = Parameters<Db['batch']>[0][number]

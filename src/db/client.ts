import { drizzle } from 'drizzle-orm/d1'

/** What reads and writes need of D1: the binding itself (the primary) or one of its sessions. */
export type D1Handle = Pick<D1Database, 'prepare' | 'batch'>

/** The drizzle handle over the panel's D1 database, or over one session of it. */
export function db(d1: D1Handle) {
  // drizzle's D1 driver calls only prepare and batch, which a session has too.
  return drizzle(d1 as D1Database)
}

export type Db = ReturnType<typeof db>
export type BatchItem = Parameters<Db['batch']>[0][number]

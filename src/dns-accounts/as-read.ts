import { eq, exists, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { accounts } from '../db/schema/accounts'
import type { AccountRecord } from './rows'

// Writes that follow a slow provider call (a test, the cron) carry these guards, so an update that committed
// meanwhile (a new token, another zoneId) is never overwritten by a result about the old credential.

/** The account's row as it was read: the same id and updatedAt, which every update changes. */
export function asRead(account: AccountRecord): SQL {
  return sql`(${eq(accounts.id, account.id)} and ${eq(accounts.updatedAt, account.updatedAt)})`
}

/** Holds while nobody has updated the account since it was read, so a late write cannot undo an update. */
export function unchangedSince(db: Db, account: AccountRecord): SQL {
  return exists(db.select({ id: accounts.id }).from(accounts).where(asRead(account)))
}

/** The updatedAt of an update: now, but always later than the last one, so `asRead` tells them apart. */
export function nextUpdatedAt(account: AccountRecord, now: Date): Date {
  return new Date(Math.max(now.getTime(), account.updatedAt.getTime() + 1))
}

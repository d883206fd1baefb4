import { and, asc, eq, isNull, lt, lte, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'

export const DAY_MS = 24 * 60 * 60 * 1000
/** A notice goes out this long before its hostnames may be removed. */
export const NOTICE_AHEAD_MS = DAY_MS
/** A notice older than this (the sweep stopped, the setting was off meanwhile) no longer counts: a new one goes. */
export const NOTICE_VALID_MS = 2 * DAY_MS

/**
 * The rows whose records never appeared: instructions or pending, never seen resolving. Written exactly as the
 * partial index `custom_hostnames_stale_idx` is, so SQLite reads through it.
 */
export const neverResolved = sql`${customHostnames.state} in ('instructions', 'pending') and ${customHostnames.dnsResolvedAt} is null`

/** A site's never-resolved rows without a notice, unchanged since `before`, oldest first. */
export function selectToNotice(database: Db, siteId: string, before: Date, limit: number) {
  return database
    .select()
    .from(customHostnames)
    .where(
      and(
        eq(customHostnames.siteId, siteId),
        neverResolved,
        isNull(customHostnames.staleNoticeAt),
        lt(customHostnames.updatedAt, before),
      ),
    )
    .orderBy(asc(customHostnames.updatedAt))
    .limit(limit)
}

/** A site's never-resolved rows noticed at or before `noticedBy`, oldest notice first. */
export function selectNoticeDue(database: Db, siteId: string, noticedBy: Date, limit: number) {
  return database
    .select()
    .from(customHostnames)
    .where(
      and(eq(customHostnames.siteId, siteId), neverResolved, lte(customHostnames.staleNoticeAt, noticedBy)),
    )
    .orderBy(asc(customHostnames.staleNoticeAt))
    .limit(limit)
}

/** Whether a never-resolved row of the site still holds the notice of `noticeAt`. */
export function selectNoticeLeft(database: Db, siteId: string, noticeAt: Date) {
  return database
    .select({ id: customHostnames.id })
    .from(customHostnames)
    .where(
      and(eq(customHostnames.siteId, siteId), neverResolved, eq(customHostnames.staleNoticeAt, noticeAt)),
    )
    .limit(1)
}

/** The operational event key of one notice: the site and the time of the run that gave it. */
export function staleEventKey(siteId: string, noticeAt: Date): string {
  return `custom-hostname-stale:${siteId}:${noticeAt.getTime()}`
}

import { and, eq, sql } from 'drizzle-orm'
import { systemAuditInsert } from '../audit/record'
import { failUnless } from '../db/batch-guard'
import type { Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import { operationalEvents } from '../db/schema/notifications'
import type { Env } from '../env'
import { clearOperationalEvent } from '../notifications/operational'
import { hasRecipients, readNotificationSettings } from '../notifications/settings'
import { AppError } from '../rpc/errors'
import { type RemoveContext, removeCustomHostname } from './remove'
import type { CustomHostnameRecord } from './rows'
import type { StaleSite } from './stale-notice'
import { stillWithoutRecords } from './stale-notice'
import {
  DAY_MS,
  NOTICE_AHEAD_MS,
  NOTICE_VALID_MS,
  neverResolved,
  selectNoticeDue,
  selectNoticeLeft,
  staleEventKey,
} from './stale-rows'

export const STALE_SWEEP_ACTOR = 'custom-hostname stale sweep'

/**
 * The remove path's context for one row: its batch holds only while the row still holds the notice it was read
 * with and never resolved (a register again or a lookup that saw the records meanwhile wins), and its audit entry
 * is the sweep's, `custom-hostname.remove-stale`.
 */
function sweepContext(
  env: Env,
  database: Db,
  row: CustomHostnameRecord,
  site: StaleSite,
  requestId: string,
): RemoveContext {
  const noticed = row.staleNoticeAt?.getTime() ?? 0
  return {
    env,
    db: database,
    async commit(writes, target = {}) {
      const guard = failUnless(
        database,
        sql`exists (select 1 from ${customHostnames} where ${customHostnames.id} = ${row.id}
          and ${customHostnames.staleNoticeAt} = ${noticed} and ${neverResolved})`,
      )
      const audit = systemAuditInsert(database, {
        action: 'custom-hostname.remove-stale',
        actor: STALE_SWEEP_ACTOR,
        requestId,
        targetId: target.targetId ?? row.id,
        detail: {
          ...target.detail,
          removeStaleAfterDays: site.days,
          noticedAt: new Date(noticed).toISOString(),
          lastRegisteredAt: row.updatedAt.toISOString(),
        },
      })
      const results = await database.batch([guard, ...writes, audit])
      return results.slice(1)
    },
  }
}

/** Whether the notice was told: its event announced, or nobody is set to hear (it can never be). */
async function noticeTold(database: Db, key: string): Promise<boolean> {
  const [event] = await database
    .select({ announcedAt: operationalEvents.announcedAt })
    .from(operationalEvents)
    .where(eq(operationalEvents.key, key))
  if (!event) return false
  return event.announcedAt !== null || !hasRecipients(await readNotificationSettings(database))
}

const forget = (database: Db, row: CustomHostnameRecord) =>
  database
    .update(customHostnames)
    .set({ staleNoticeAt: null })
    .where(
      and(
        eq(customHostnames.id, row.id),
        eq(customHostnames.staleNoticeAt, row.staleNoticeAt ?? new Date(0)),
      ),
    )

/**
 * Removes up to `limit` of the site's rows noticed a day or more before `now`, through the remove path, each in
 * its own audited batch; the notice's event closes once none of its rows is left. A notice that no longer holds
 * (too old, the row registered again, the setting now longer) is forgotten, so a fresh one comes first. Answers
 * how many rows it read.
 */
export async function removeStale(
  env: Env,
  database: Db,
  site: StaleSite,
  now: Date,
  limit: number,
  requestId: string,
): Promise<number> {
  const rows = await selectNoticeDue(database, site.siteId, new Date(now.getTime() - NOTICE_AHEAD_MS), limit)
  const notices = new Map<number, CustomHostnameRecord[]>()
  for (const row of rows) {
    const at = row.staleNoticeAt?.getTime() ?? 0
    notices.set(at, [...(notices.get(at) ?? []), row])
  }
  const oldEnough = now.getTime() - site.days * DAY_MS
  for (const [at, noticed] of notices) {
    const key = staleEventKey(site.siteId, new Date(at))
    const holds = (row: CustomHostnameRecord) =>
      at > now.getTime() - NOTICE_VALID_MS &&
      row.updatedAt.getTime() <= at &&
      row.updatedAt.getTime() < oldEnough
    for (const row of noticed.filter((row) => !holds(row))) await forget(database, row)
    const due = noticed.filter(holds)
    if (due.length > 0 && (await noticeTold(database, key))) {
      for (const row of await stillWithoutRecords(env, database, due)) {
        try {
          await removeCustomHostname(sweepContext(env, database, row, site, requestId), row)
        } catch (error) {
          // Registered again, removed or resolved meanwhile: the row is no longer the sweep's.
          if (!(error instanceof AppError)) throw error
        }
      }
    }
    const [left] = await selectNoticeLeft(database, site.siteId, new Date(at))
    if (!left) await clearOperationalEvent(env, key, now)
  }
  return rows.length
}

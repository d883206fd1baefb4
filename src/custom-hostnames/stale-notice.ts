import { and, eq, isNull } from 'drizzle-orm'
import type { BatchItem, Db } from '../db/client'
import { customHostnames } from '../db/schema/custom-hostnames'
import type { Env } from '../env'
import { type OperationalEvent, raiseOperationalEvent } from '../notifications/operational'
import { namedHostname } from './operational-event'
import type { CustomHostnameRecord } from './rows'
import { recordsAppeared } from './stale-lookup'
import { DAY_MS, NOTICE_AHEAD_MS, neverResolved, selectToNotice, staleEventKey } from './stale-rows'
import { lookUp, storeDnsCheck } from './status'

/** A site that opted in to the removal of hostnames that never complete. */
export interface StaleSite {
  siteId: string
  siteName: string
  days: number
}

/**
 * A row looked up once more: those whose records appeared meanwhile are stored as resolved (and leave the sweep);
 * answers those public DNS says are still without their records. Unknown answers are left for a later run.
 */
export async function stillWithoutRecords(
  env: Env,
  database: Db,
  rows: CustomHostnameRecord[],
): Promise<CustomHostnameRecord[]> {
  const looked = await Promise.all(
    rows.map(async (row) => ({ row, appeared: await recordsAppeared(env.DOH_RESOLVER_URL, row.records) })),
  )
  for (const { row, appeared } of looked)
    if (appeared === 'yes') await storeDnsCheck(database, env, row, await lookUp(database, env, row))
  return looked.filter(({ appeared }) => appeared === 'no').map(({ row }) => row)
}

function staleEvent(site: StaleSite, rows: CustomHostnameRecord[], noticeAt: Date): OperationalEvent {
  const removeAfter = new Date(noticeAt.getTime() + NOTICE_AHEAD_MS).toISOString()
  const [first] = rows
  const more = rows.length > 1 ? ` and ${rows.length - 1} more` : ''
  return {
    kind: 'custom-hostname.stale',
    key: staleEventKey(site.siteId, noticeAt),
    subject: `${rows.length} custom hostname${rows.length === 1 ? '' : 's'} of site ${site.siteName} (${first?.hostname}${more}) will be removed after ${removeAfter}`,
    detail: [
      `Their DNS records never appeared within ${site.days} days of their last register, so the site's removeStaleAfterDays setting removes them after ${removeAfter}, with the records the panel wrote and their routes.`,
      'To keep one, create its records (its status shows them) or register it again; to keep all, turn the setting off.',
      '',
      ...rows.map((row) => row.hostname),
    ].join('\n'),
    link: `/sites/${site.siteId}`,
    customHostnames: rows.map(namedHostname),
  }
}

/**
 * Notices up to `limit` of the site's rows whose records never appeared within `days - 1` days: each marked in
 * one batch (only while unchanged since read, so a rerun or an overlapping run marks none twice), then one
 * operational event names those it marked. Answers how many rows it read.
 */
export async function noticeStale(
  env: Env,
  database: Db,
  site: StaleSite,
  noticeAt: Date,
  limit: number,
): Promise<number> {
  const before = new Date(noticeAt.getTime() - site.days * DAY_MS + NOTICE_AHEAD_MS)
  const rows = await selectToNotice(database, site.siteId, before, limit)
  const due = await stillWithoutRecords(env, database, rows)
  const marks = due.map(
    (row): BatchItem =>
      database
        .update(customHostnames)
        .set({ staleNoticeAt: noticeAt })
        .where(
          and(
            eq(customHostnames.id, row.id),
            eq(customHostnames.generation, row.generation),
            eq(customHostnames.updatedAt, row.updatedAt),
            isNull(customHostnames.staleNoticeAt),
            neverResolved,
          ),
        )
        .returning({ id: customHostnames.id }),
  )
  const [first, ...rest] = marks
  if (!first) return rows.length
  const results = (await database.batch([first, ...rest])) as { id: string }[][]
  const marked = due.filter((_, i) => (results[i]?.length ?? 0) > 0)
  if (marked.length > 0) await raiseOperationalEvent(env, staleEvent(site, marked, noticeAt), noticeAt)
  return rows.length
}

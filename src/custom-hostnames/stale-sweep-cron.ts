import { eq, isNotNull } from 'drizzle-orm'
import type { CronTask } from '../cron/task'
import { db } from '../db/client'
import { customHostnameSettings } from '../db/schema/custom-hostnames'
import { sites } from '../db/schema/fleet'
import { noticeStale, type StaleSite } from './stale-notice'
import { removeStale } from './stale-removal'

/**
 * Rows one run notices, and rows it removes, all sites together: each costs a DoH lookup, and a removal a few
 * D1 statements, so a run stays far inside a Worker invocation's subrequest and D1 query limits. At one run per
 * 10 minutes that is 7,200 removals a day.
 */
export const STALE_PER_RUN = 50

/**
 * Every 10 minutes, for each site with removeStaleAfterDays set: removes the rows noticed a day ago that still
 * never resolved, then notices the rows whose removal is due in a day. The sites take turns at the head of the
 * run, so one site's backlog does not starve the others.
 */
export const customHostnameStaleSweepTask: CronTask = {
  name: 'custom-hostname stale sweep',
  schedule: '*/10 * * * *',
  async run(env, scheduledTime) {
    const database = db(env.DB)
    const opted: StaleSite[] = (
      await database
        .select({
          siteId: customHostnameSettings.siteId,
          siteName: sites.name,
          days: customHostnameSettings.removeStaleAfterDays,
        })
        .from(customHostnameSettings)
        .innerJoin(sites, eq(sites.id, customHostnameSettings.siteId))
        .where(isNotNull(customHostnameSettings.removeStaleAfterDays))
        .orderBy(customHostnameSettings.siteId)
    ).map((site) => ({ ...site, days: site.days ?? 0 }))
    if (opted.length === 0) return
    const turn = Math.floor(scheduledTime / 600_000) % opted.length
    const order = [...opted.slice(turn), ...opted.slice(0, turn)]
    const now = new Date(scheduledTime)
    const requestId = `stale-sweep:${scheduledTime}`
    let removals = STALE_PER_RUN
    for (const site of order) {
      if (removals <= 0) break
      removals -= await removeStale(env, database, site, now, removals, requestId)
    }
    let notices = STALE_PER_RUN
    for (const site of order) {
      if (notices <= 0) break
      notices -= await noticeStale(env, database, site, now, notices)
    }
  },
}

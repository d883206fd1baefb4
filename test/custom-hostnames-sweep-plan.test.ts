import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { selectNoticeDue, selectNoticeLeft, selectToNotice } from '../src/custom-hostnames/stale-rows'
import { selectLostChains } from '../src/custom-hostnames/sweep-cron'
import { db } from '../src/db/client'

describe('the custom-hostname sweep at scale', () => {
  it('should read the rows in flight through the (state, updated_at) index, never scanning every hostname', async () => {
    const query = selectLostChains(db(env.DB), new Date()).toSQL()
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>()
    const steps = plan.results.map((row) => row.detail).join('; ')
    expect(steps).toContain('USING INDEX custom_hostnames_state_idx (state=? AND updated_at<?)')
    expect(steps).not.toMatch(/SCAN custom_hostnames(?! USING)/)
  })
})

describe('the stale sweep’s reads', () => {
  const plans = async (query: { sql: string; params: unknown[] }) => {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>()
    return plan.results.map((row) => row.detail).join('; ')
  }
  const siteId = crypto.randomUUID()

  it('should read one site’s never-resolved rows through the partial stale index, with no sort', async () => {
    const database = db(env.DB)
    const toNotice = await plans(selectToNotice(database, siteId, new Date(), 50).toSQL())
    expect(toNotice).toContain(
      'USING INDEX custom_hostnames_stale_idx (site_id=? AND stale_notice_at=? AND updated_at<?)',
    )
    const due = await plans(selectNoticeDue(database, siteId, new Date(), 50).toSQL())
    expect(due).toContain('USING INDEX custom_hostnames_stale_idx (site_id=? AND stale_notice_at<?)')
    const left = await plans(selectNoticeLeft(database, siteId, new Date()).toSQL())
    expect(left).toContain('USING INDEX custom_hostnames_stale_idx (site_id=? AND stale_notice_at=?)')
    for (const steps of [toNotice, due, left]) {
      expect(steps).not.toMatch(/SCAN custom_hostnames(?! USING)/)
      expect(steps).not.toMatch(/TEMP B-TREE/)
    }
  })
})

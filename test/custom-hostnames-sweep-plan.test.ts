import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
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

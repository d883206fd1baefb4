import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { seedHostnames } from './custom-hostnames/seed'
import { captureJobs } from './dns-servers/run-job'
import { countRowsRead } from './helpers/d1-meter'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// The overview's custom-hostname tally comes from the count per state, so its reads do not grow with the rows.

const workerEnv = env as unknown as Env
let admin: Caller

interface Tally {
  total: number
  failing: number
  waiting: number
}

beforeAll(async () => {
  captureJobs()
  admin = await adminSession()
})

async function summaryAndRows(): Promise<{ tally: Tally; rows: number }> {
  await ok('overview.summary', {}, admin)
  const counting = countRowsRead()
  const answer = await ok<{ customHostnames: Tally }>('overview.summary', {}, admin)
  return { tally: answer.customHostnames, rows: counting.stop() }
}

async function countedRows(): Promise<Tally> {
  const row = await workerEnv.DB.prepare(
    `SELECT count(*) AS total, sum(state IN ('failed', 'removal-manual')) AS failing,
      sum(state IN ('instructions', 'pending')) AS waiting FROM custom_hostnames`,
  ).first<Tally>()
  return { total: row?.total ?? 0, failing: row?.failing ?? 0, waiting: row?.waiting ?? 0 }
}

describe('overview.summary at many custom hostnames', () => {
  it('should read the same rows at 10 and at 10,000 more hostnames, and tally them all', async () => {
    const site = await siteWithToken(admin)
    await seedHostnames(site, zoneName('overview'), 10)
    const small = await summaryAndRows()
    expect(small.tally).toMatchObject(await countedRows())
    await seedHostnames(site, zoneName('overview'), 10_000)
    await workerEnv.DB.prepare(
      `UPDATE custom_hostnames SET state = 'failed' WHERE id IN
        (SELECT id FROM custom_hostnames WHERE site_id = ? ORDER BY created_at LIMIT 3)`,
    )
      .bind(site.siteId)
      .run()
    const large = await summaryAndRows()
    expect(large.tally).toMatchObject(await countedRows())
    expect(large.tally.total - small.tally.total).toBe(10_000)
    console.log(
      `rows read by overview.summary: ${small.rows} with 10 more hostnames, ${large.rows} with 10,010`,
    )
    expect(large.rows).toBeLessThanOrEqual(small.rows + 20)
  }, 60_000)
})

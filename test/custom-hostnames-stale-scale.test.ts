import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { customHostnameStaleSweepTask, STALE_PER_RUN } from '../src/custom-hostnames/stale-sweep-cron'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { seedHostnames } from './custom-hostnames/seed'
import { captureJobs } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { runCron } from './helpers/changelog'
import { countRowsRead } from './helpers/d1-meter'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// The stale sweep at 100,000 hostnames a site: a run reads the rows it acts on, not the sites' other rows, and
// removes at most STALE_PER_RUN of a backlog.

const workerEnv = env as unknown as Env
const SEEDED = 100_000
const DAY = 24 * 60 * 60 * 1000
let admin: Caller
const zones = {
  off: zoneName('stale-off'),
  resolved: zoneName('stale-resolved'),
  backlog: zoneName('stale-backlog'),
}
const sites: Partial<Record<keyof typeof zones, SiteFixture>> = {}

const ageAll = (zone: string, extra = '') =>
  workerEnv.DB.prepare(
    `UPDATE custom_hostnames SET updated_at = updated_at - ?1 ${extra} WHERE zone_name = ?2`,
  )
    .bind(30 * DAY, zone)
    .run()
const count = async (zone: string) =>
  (
    await workerEnv.DB.prepare('SELECT count(*) AS n FROM custom_hostnames WHERE zone_name = ?')
      .bind(zone)
      .first<{ n: number }>()
  )?.n

beforeAll(async () => {
  captureJobs()
  admin = await adminSession()
  const started = performance.now()
  for (const key of Object.keys(zones) as (keyof typeof zones)[]) {
    const site = await siteWithToken(admin)
    sites[key] = site
    await seedHostnames(site, zones[key], SEEDED)
  }
  // Month-old rows everywhere: never resolved on a site that did not opt in and on the backlog's; resolved on the other.
  await ageAll(zones.off)
  await ageAll(zones.resolved, ', dns_resolved_at = created_at')
  await ageAll(zones.backlog)
  for (const key of ['resolved', 'backlog'] as const)
    await ok(
      'customHostnames.settings.set',
      { siteId: sites[key]?.siteId, allowedZones: [], removeStaleAfterDays: 7 },
      admin,
    )
  console.log(`seeded 3 × ${SEEDED} hostnames in ${Math.round(performance.now() - started)} ms`)
}, 300_000)

describe('the stale sweep at 100,000 hostnames a site', () => {
  it('should read only the rows it notices or removes, and remove at most a run’s share of a backlog', async () => {
    new FakeDoh().install()
    const now = Date.now()
    const run = async (at: number) => {
      const counting = countRowsRead()
      const started = performance.now()
      await runCron(customHostnameStaleSweepTask.schedule, at)
      return { rows: counting.stop(), ms: Math.round(performance.now() - started) }
    }
    const notice = await run(now)
    const removal = await run(now + DAY + 60_000)
    console.log(
      [
        `stale sweep with 3 sites of ${SEEDED} month-old hostnames (one off, one resolved, one a backlog):`,
        `run noticing ${STALE_PER_RUN}: ${notice.rows} rows read, ${notice.ms} ms`,
        `run removing ${STALE_PER_RUN} and noticing ${STALE_PER_RUN}: ${removal.rows} rows read, ${removal.ms} ms`,
      ].join('\n'),
    )
    expect(await count(zones.backlog)).toBe(SEEDED - STALE_PER_RUN)
    expect(await count(zones.off)).toBe(SEEDED)
    expect(await count(zones.resolved)).toBe(SEEDED)
    // The lost-chain sweep of the same schedule reads what is in flight (nothing here) through its own index.
    expect(notice.rows).toBeLessThan(STALE_PER_RUN * 10)
    expect(removal.rows).toBeLessThan(STALE_PER_RUN * 60)
  }, 300_000)
})

import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { seedHostnames } from './custom-hostnames/seed'
import { captureJobs } from './dns-servers/run-job'
import { countRowsRead } from './helpers/d1-meter'
import { ok } from './helpers/http'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'

// customHostnames.list and status on a site of 100,000 hostnames: each answer reads a page (keyset on the site's
// index), never the site's rows, and every query the two make is answered from an index.

const workerEnv = env as unknown as Env
const SEEDED = 100_000
let site: SiteFixture
let zone: string

interface Page {
  hostnames: { id: string; hostname: string }[]
  nextCursor: string | null
}

beforeAll(async () => {
  interceptOutbound()
  captureJobs()
  site = await siteWithToken(await adminSession())
  zone = zoneName('hundred-k')
  const started = performance.now()
  await seedHostnames(site, zone, SEEDED)
  console.log(`seeded ${SEEDED} hostnames in ${Math.round(performance.now() - started)} ms`)
}, 120_000)

/** The answer of a call, the D1 rows it read and the milliseconds it took (the median of 5 runs). */
async function measured<T>(run: () => Promise<T>): Promise<{ answer: T; rows: number; ms: number }> {
  const counting = countRowsRead()
  const answer = await run()
  const rows = counting.stop()
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    await run()
    times.push(performance.now() - started)
  }
  return { answer, rows, ms: times.sort((a, b) => a - b)[2] ?? 0 }
}

const list = (input: Record<string, unknown>) =>
  ok<Page>('customHostnames.list', { siteId: site.siteId, limit: 100, ...input }, site.app)

describe('customHostnames.list and status at 100,000 hostnames', () => {
  it('should read a page of rows for the first page, a page deep in the list and status', async () => {
    const first = await measured(() => list({}))
    expect(first.answer.hostnames.map((row) => row.hostname).slice(0, 2)).toEqual([
      `h${SEEDED}.${zone}`,
      `h${SEEDED - 1}.${zone}`,
    ])
    const deepId = await workerEnv.DB.prepare('SELECT id FROM custom_hostnames WHERE hostname = ?')
      .bind(`h${SEEDED / 2}.${zone}`)
      .first<{ id: string }>()
    const deep = await measured(() => list({ cursor: deepId?.id }))
    expect(deep.answer.hostnames[0]?.hostname).toBe(`h${SEEDED / 2 - 1}.${zone}`)
    const status = await measured(() =>
      ok('customHostnames.status', { siteId: site.siteId, hostname: `h77777.${zone}` }, site.app),
    )
    expect(status.answer).toMatchObject({ state: 'instructions' })
    const search = await measured(() => list({ search: `h9999` }))
    expect(search.answer.hostnames.map((row) => row.hostname)).toContain(`h99999.${zone}`)
    const rare = await measured(() => list({ search: `h12345.` }))
    expect(rare.answer.hostnames.map((row) => row.hostname)).toEqual([`h12345.${zone}`])
    console.log(
      [
        `at ${SEEDED} hostnames (rows read, median ms of 5):`,
        `list first page ${first.rows} rows ${first.ms.toFixed(1)} ms`,
        `list page after row 50,000 ${deep.rows} rows ${deep.ms.toFixed(1)} ms`,
        `status ${status.rows} rows ${status.ms.toFixed(1)} ms`,
        `search matching a page ${search.rows} rows ${search.ms.toFixed(1)} ms`,
        `search matching one ${rare.rows} rows ${rare.ms.toFixed(1)} ms`,
      ].join('\n'),
    )
    // A row of the page reads itself, its site and its instance (for the certificate observation's node).
    for (const paged of [first, deep]) expect(paged.rows).toBeLessThan(3 * 101 + 20)
    expect(status.rows).toBeLessThan(50)
  }, 120_000)

  it('should answer each list and status query from an index, with no sort of the site rows', async () => {
    const plans: string[][] = []
    const prepare = workerEnv.DB.prepare.bind(workerEnv.DB)
    const explain = async (query: string, values: unknown[]) => {
      const plan = await prepare(`EXPLAIN QUERY PLAN ${query}`)
        .bind(...values)
        .all<{ detail: string }>()
      plans.push(plan.results.map((step) => step.detail))
    }
    const counting = countRowsRead()
    const queries: { query: string; values: unknown[] }[] = []
    const spy = workerEnv.DB.prepare
    workerEnv.DB.prepare = (query: string) => {
      const statement = spy(query)
      return new Proxy(statement, {
        get(target, property) {
          if (property === 'bind')
            return (...values: unknown[]) => {
              queries.push({ query, values })
              return target.bind(...values)
            }
          const value: unknown = Reflect.get(target, property)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    }
    try {
      await list({ search: 'h42' })
      const cursor = (await list({})).nextCursor
      await list({ cursor })
      await ok('customHostnames.status', { siteId: site.siteId, hostname: `h4242.${zone}` }, site.app)
    } finally {
      workerEnv.DB.prepare = spy
      counting.stop()
    }
    for (const { query, values } of queries.filter((q) => /custom_hostnames/.test(q.query)))
      await explain(query, values)
    expect(plans.length).toBeGreaterThanOrEqual(4)
    for (const plan of plans) {
      const steps = plan.join('\n')
      expect(steps).not.toMatch(/SCAN custom_hostnames/)
      expect(steps).not.toMatch(/TEMP B-TREE/)
    }
  }, 60_000)
})

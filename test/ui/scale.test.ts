import { randomUUID } from 'node:crypto'
import type { Locator, Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { agentUrl, clientAs } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { browserPages, settled } from './helpers.ts'
import { seedHostnames } from './seed-hostnames.ts'

// With 100,000 custom hostnames (and their routes) on one site, the site page, the fleet and the overview are
// usable within 2 s of navigating to them (the median of three navigations): each reads a page of rows, counts come from counters, and the
// hostnames and routes tables find a hostname deep in the list by search.

const SEEDED = 100_000
const BUDGET_MS = 2_000
const pages = browserPages()
const tag = randomUUID().slice(0, 8)
const zone = `scale-${tag}.example.org`
const names = { node: `ui-scale-node-${tag}`, site: `ui-scale-${tag}` }
let siteId = ''
const timings: string[] = []

beforeAll(async () => {
  const admin = await clientAs()
  const node = await admin.nodes.create({
    name: names.node,
    agentUrl: agentUrl(),
    agentSecret: FAKE_AGENT_SECRET,
    dnsTarget: 'edge.scale.example.net',
  })
  const instance = await admin.instances.create({ nodeId: node.id, name: 'scale', address: '10.0.0.40' })
  const site = await admin.sites.create({ instanceId: instance.id, name: names.site })
  siteId = site.id
  const started = performance.now()
  await seedHostnames({ nodeId: node.id, instanceId: instance.id, siteId }, zone, SEEDED)
  console.log(`ui: seeded ${SEEDED} hostnames in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  const summary = await admin.overview.summary({})
  expect(summary.customHostnames?.total).toBeGreaterThanOrEqual(SEEDED)
}, 180_000)

/** A signed-in page, settled, from which each measure navigates. */
async function signedIn(): Promise<Page> {
  return pages.open('admin', '/account')
}

/** Milliseconds from `start` until every one of `visible` shows. */
async function timed(start: () => Promise<unknown>, visible: Locator[]): Promise<number> {
  const began = performance.now()
  await start()
  await Promise.all(visible.map((locator) => locator.waitFor({ timeout: 15_000 })))
  return Math.round(performance.now() - began)
}

/** The median of three navigations to `path` until `visible` shows (the first loads the pages' code too). */
async function navigation(what: string, page: Page, path: string, visible: Locator[]): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 3; i++) {
    times.push(await timed(() => page.goto(path), visible))
    await settled(page)
  }
  const median = times.sort((a, b) => a - b)[1] ?? 0
  record(`${what} ${median} ms (runs: ${times.join(', ')})`)
  return median
}

function record(line: string): void {
  timings.push(line)
  console.log(`ui: ${line}`)
}

describe(`the pages with ${SEEDED} custom hostnames on one site`, () => {
  it('load the site page with its routes and hostnames, and find a hostname deep in each by search', async () => {
    const page = await signedIn()
    const hostnames = page.getByRole('region', { name: 'Hostnames' })
    const routes = page.getByRole('region', { name: 'Routes' })
    const loaded = await navigation('site page', page, `/sites/${siteId}`, [
      page.getByRole('heading', { level: 1, name: names.site }),
      hostnames.locator('li.card strong').getByText(`h${SEEDED}.${zone}`, { exact: true }),
      routes.getByRole('cell', { name: `https://h${SEEDED}.${zone} → instance port 80` }),
    ])
    expect(loaded).toBeLessThan(BUDGET_MS)
    await settled(page)
    const deep = `h12345.${zone}`
    const found = await timed(
      () => hostnames.getByRole('searchbox', { name: 'Search hostnames' }).fill(`h12345.`),
      [hostnames.locator('li.card strong').getByText(deep, { exact: true })],
    )
    record(`hostname search ${found} ms`)
    expect(found).toBeLessThan(BUDGET_MS)
    await expect.poll(() => hostnames.locator('li.card').count()).toBe(1)
    const routeFound = await timed(
      () => routes.getByRole('searchbox', { name: 'Search routes' }).fill('h54321.'),
      [routes.getByRole('cell', { name: `https://h54321.${zone} → instance port 80` })],
    )
    record(`route search ${routeFound} ms`)
    expect(routeFound).toBeLessThan(BUDGET_MS)
    await expect.poll(() => routes.locator('tbody tr').count()).toBe(1)
  })

  it('load the fleet', async () => {
    const page = await signedIn()
    const loaded = await navigation('fleet page', page, '/fleet', [
      page.getByRole('heading', { level: 1, name: 'Fleet' }),
      page.getByRole('region', { name: 'Nodes' }).getByRole('cell', { name: names.node, exact: true }),
      page.getByRole('link', { name: names.site, exact: true }),
    ])
    expect(loaded).toBeLessThan(BUDGET_MS)
  })

  it('load the overview with every hostname counted', async () => {
    const page = await signedIn()
    const tile = page
      .getByRole('list', { name: 'Counts' })
      .getByRole('listitem')
      .filter({ hasText: 'Custom hostnames' })
    const loaded = await navigation('overview', page, '/', [tile.locator('.count')])
    expect(loaded).toBeLessThan(BUDGET_MS)
    expect(Number(await tile.locator('.count').textContent())).toBeGreaterThanOrEqual(SEEDED)
    console.log(`ui: with ${SEEDED} hostnames seeded: ${timings.join('; ')}`)
  })
})

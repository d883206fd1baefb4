import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { agentUrl, clientAs, createUser } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { FAKE_EDGE_TARGET } from './fake-resolver.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// An operator (read-only role) walks every page it can reach — the navigation's entries and the links inside
// each of them, so pages added later are covered without touching this file — and is offered no write action.
// Each distinct page shape (ids replaced by :id) is visited once.

const pages = browserPages()

// Buttons and links that would change something; an operator holds none of the manage permissions.
const WRITE_ACTION =
  /^(add|archive|attach|create|delete|detach|disable|edit|enable|install|mint|new|pause|publish|register|remove|rename|renew|resume|revoke|save|unpublish|upload)\b/i

/** A path with its ids (UUIDs, long tokens with digits) replaced by :id, so one page per shape is visited. */
function shapeOf(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => (segment.length >= 8 && /\d/.test(segment) ? ':id' : segment))
    .join('/')
}

/** The pages' own paths the links inside `selector` point to (not the API, the widget or a file), in order. */
async function pathsOf(page: Page, selector: string): Promise<string[]> {
  const here = new URL(page.url())
  const paths: string[] = []
  for (const link of await page.locator(`${selector} a[href]`).all()) {
    const url = new URL((await link.getAttribute('href')) ?? '', here)
    const inApp = url.origin === here.origin && !/^\/(api|widget)\/|\.\w+$/.test(url.pathname)
    if (inApp) paths.push(url.pathname)
  }
  return paths
}

async function writeActions(page: Page): Promise<string[]> {
  const names: string[] = []
  for (const role of ['button', 'link'] as const)
    for (const element of await page.getByRole(role, { name: WRITE_ACTION }).all())
      if (await element.isVisible()) names.push(`${role} "${(await element.textContent())?.trim()}"`)
  return names
}

/**
 * Visits the navigation's pages and, down to `depth` levels, the pages linked from their main content, each
 * shape once, calling `visit` on each settled page; resolves with the shapes visited.
 */
async function walk(
  page: Page,
  depth: number,
  visit: (pathname: string, shape: string) => Promise<void>,
): Promise<string[]> {
  const queue = await pathsOf(page, 'nav[aria-label="Main"]')
  expect(queue.length, 'navigation entries').toBeGreaterThan(0)
  const seen = new Set<string>()
  for (let level = 0; level < depth && queue.length > 0; level++) {
    const next: string[] = []
    for (const pathname of queue.splice(0)) {
      const shape = shapeOf(pathname)
      if (seen.has(shape)) continue
      seen.add(shape)
      await page.goto(pathname)
      await settled(page)
      await visit(pathname, shape)
      next.push(...(await pathsOf(page, 'main')))
    }
    queue.push(...next)
  }
  return [...seen]
}

describe('an operator', () => {
  beforeAll(async () => {
    // Something on each fleet page, so the walk reaches the detail pages behind the lists.
    const admin = await clientAs()
    const node = await admin.nodes.create({
      name: 'operator-walk-node',
      agentUrl: agentUrl(),
      agentSecret: FAKE_AGENT_SECRET,
      dnsTarget: FAKE_EDGE_TARGET,
    })
    const instance = await admin.instances.create({
      nodeId: node.id,
      name: 'operator-walk',
      address: '10.0.0.5',
    })
    await admin.sites.create({ instanceId: instance.id, name: 'operator-walk-site' })
  })

  it('is offered no create, edit or remove action on any page it can reach', async () => {
    const page = await pages.open(await createUser('operator'))
    const offered: string[] = []
    const seen = await walk(page, 2, async (pathname, shape) => {
      offered.push(...(await writeActions(page)).map((name) => `${pathname}: ${name}`))
      await inspect(page, `operator${shape === '/' ? '-overview' : shape.replace(/[/:]+/g, '-')}`)
    })
    expect(offered).toEqual([])
    console.log(`operator walk: ${seen.join(', ')}`)
  })

  it('sees none of what the same check finds offered to the admin', async () => {
    const page = await pages.open('admin')
    const offered: string[] = []
    await walk(page, 1, async () => {
      offered.push(...(await writeActions(page)))
    })
    expect(offered.length).toBeGreaterThan(0)
  })
})

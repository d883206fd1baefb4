import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { baseUrl, clientAs } from './api.ts'
import { browserPages, checkA11y, checkNoOverflow, inspect, screenshot } from './helpers.ts'

// A public status page read by a browser with JavaScript off, and its badge embedded as an <img> on a page of
// another origin (a Node server on another 127.0.0.1 port).

const pages = browserPages()
const suffix = crypto.randomUUID().slice(0, 8)
const slug = `ui-${suffix}`
const hiddenName = `internal heartbeat ${suffix}`

let server: Server
let siteUrl = ''
let browser: Browser

beforeAll(async () => {
  const admin = await clientAs()
  const probe = await admin.probes.create({
    name: hiddenName,
    type: 'heartbeat',
    targetKind: 'external',
    target: `nightly-backup-${suffix}`,
    config: { intervalSeconds: 3600, graceSeconds: 600 },
  })
  const ping = await fetch(probe.heartbeatUrl ?? '')
  expect(ping.status).toBe(200)
  await admin.statusPages.create({
    slug,
    title: 'Acme status',
    description: 'Backups and the website',
    public: true,
    groups: [{ name: 'Jobs', probes: [{ probeId: probe.id, displayName: 'Nightly backup' }] }],
  })

  server = createServer((_request, response) => {
    const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Embedding site</title></head>
<body><main id="root"><h1>Our project</h1>
<img id="badge" src="${baseUrl()}/api/v1/status/${slug}/badge.svg" alt="service status">
</main></body>
</html>`
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  browser = await chromium.connect(inject('ui').browserEndpoint)
})

afterAll(async () => {
  await browser?.close()
  await new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
})

describe('a public status page', () => {
  it('renders with JavaScript disabled, styled by its own stylesheet, within the panel’s policy', async () => {
    const context = await browser.newContext({ baseURL: baseUrl(), javaScriptEnabled: false })
    try {
      const page = await context.newPage()
      const problems: string[] = []
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text())
      })
      const stylesheets: number[] = []
      page.on('response', (response) => {
        if (response.url().endsWith('/status.css')) stylesheets.push(response.status())
      })
      const answer = await page.goto(`/status/${slug}`)
      expect(answer?.status()).toBe(200)
      expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'")
      await page.waitForLoadState('load')
      expect(await page.locator('h1').textContent()).toBe('Acme status')
      expect(await page.locator('.overall').textContent()).toBe('All systems operational')
      const probe = page.locator('.probe')
      expect(await probe.locator('.name').textContent()).toBe('Nightly backup')
      expect(await probe.locator('.state').textContent()).toBe('up')
      expect(await probe.locator('.bar').count()).toBe(90)
      expect(await page.locator('.events li').first().textContent()).toContain('Nightly backup')
      expect(stylesheets).toEqual([200])
      expect(problems).toEqual([])
      expect(await page.content()).not.toContain(hiddenName)
      await screenshot(page, 'status-page-no-js')
    } finally {
      await context.close()
    }
  })

  it('passes the accessibility and width checks at a desktop and a phone width', async () => {
    const context = await browser.newContext({ baseURL: baseUrl() })
    try {
      const page = await context.newPage()
      await page.goto(`/status/${slug}`)
      // The stylesheet really applies: the headline is green, not the browser's default.
      const background = await page.locator('.overall').evaluate(
        (node) =>
          (
            globalThis as unknown as {
              getComputedStyle(el: unknown): { backgroundColor: string }
            }
          ).getComputedStyle(node).backgroundColor,
      )
      expect(background).toBe('rgb(26, 127, 55)')
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 })
        await screenshot(page, `status-page${width === 390 ? '.phone' : ''}`)
        await checkNoOverflow(page, 'status page')
        await checkA11y(page, `status page at ${width} px`)
      }
    } finally {
      await context.close()
    }
  })

  it('shows its badge as an <img> on a page of another origin', async () => {
    expect(new URL(siteUrl).origin).not.toBe(new URL(baseUrl()).origin)
    const page = await pages.open(null, siteUrl)
    const badge = page.locator('#badge')
    await expect
      .poll(() => badge.evaluate((img) => (img as unknown as { complete: boolean }).complete))
      .toBe(true)
    const size = await badge.evaluate((img) => {
      const image = img as unknown as { naturalWidth: number; naturalHeight: number }
      return { width: image.naturalWidth, height: image.naturalHeight }
    })
    expect(size.height).toBe(20)
    expect(size.width).toBeGreaterThan(50)
  })

  it('is created from Monitoring → Status pages with a probe under its public name, and its link opens it', async () => {
    const page = await pages.open('admin', '/monitoring')
    await page
      .getByRole('navigation', { name: 'Monitoring' })
      .getByRole('link', { name: 'Status pages' })
      .click()
    await page.getByRole('heading', { name: 'Status pages', level: 1 }).waitFor()
    const form = page.getByRole('form', { name: 'Add a status page' })
    const newSlug = `ui-form-${suffix}`
    await form.getByLabel('Slug').fill(newSlug)
    await form.getByLabel('Title', { exact: true }).fill('Form status')
    await form.getByRole('checkbox', { name: hiddenName }).check()
    await form.getByLabel(`Public name of ${hiddenName} in Services`).fill('Backups')
    await inspect(page, 'status-pages-form')
    await form.getByRole('button', { name: 'Add status page' }).click()
    const card = page.locator(`li[data-status-page="${newSlug}"]`)
    await card.waitFor()
    expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe('Form status')
    expect(await card.getByTestId('status-page-facts').textContent()).toBe('Public · 1 group · 1 probe')
    await card.getByRole('link', { name: `${baseUrl()}/status/${newSlug}` }).click()
    await page.waitForURL(`**/status/${newSlug}`)
    expect(await page.locator('.probe .name').textContent()).toBe('Backups')
  })

  it('adds a page with two groups, shows its three public addresses to copy, and edits it in place', async () => {
    const admin = await clientAs()
    const second = await admin.probes.create({
      name: `website ${suffix}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: `website-${suffix}`,
    })
    const page = await pages.open('admin', '/monitoring/status-pages')
    const form = page.getByRole('form', { name: 'Add a status page' })
    const groupsSlug = `ui-groups-${suffix}`
    await form.getByLabel('Slug').fill(groupsSlug)
    await form.getByLabel('Title', { exact: true }).fill('Groups status')
    const groups = form.getByTestId('status-page-group')
    await groups.nth(0).getByLabel('Group name').fill('Jobs')
    await groups.nth(0).getByRole('checkbox', { name: hiddenName }).check()
    await form.getByRole('button', { name: 'Add a group' }).click()
    await groups.nth(1).getByLabel('Group name').fill('Web')
    await groups.nth(1).getByRole('checkbox', { name: second.name }).check()
    await groups.nth(1).getByLabel(`Public name of ${second.name} in Web`).fill('Website')
    await inspect(page, 'status-pages-two-groups')
    await form.getByRole('button', { name: 'Add status page' }).click()

    const card = page.locator(`li[data-status-page="${groupsSlug}"]`)
    await card.waitFor()
    expect(await card.getByTestId('status-page-facts').textContent()).toBe('Public · 2 groups · 2 probes')
    const json = `${baseUrl()}/api/v1/status/${groupsSlug}`
    for (const address of [`${baseUrl()}/status/${groupsSlug}`, json, `${json}/badge.svg`])
      expect(await card.getByRole('link', { name: address, exact: true }).count()).toBe(1)
    for (const what of ['page', 'JSON', 'badge'])
      expect(await card.getByRole('button', { name: `Copy ${what} address` }).count()).toBe(1)
    const served = (await (await fetch(json)).json()) as { groups: { name: string }[] }
    expect(served.groups.map((group) => group.name)).toEqual(['Jobs', 'Web'])
    await inspect(page, 'status-pages-addresses')

    await card.getByRole('button', { name: 'Edit Groups status' }).click()
    const edit = card.getByRole('form', { name: 'Edit Groups status' })
    await edit.getByLabel('Title', { exact: true }).fill('Groups status, edited')
    await edit.getByLabel('Description').fill('Jobs only now')
    await edit.getByRole('button', { name: 'Remove group Web' }).click()
    await inspect(page, 'status-pages-edit')
    await edit.getByRole('button', { name: 'Save status page' }).click()
    await expect
      .poll(() => card.getByRole('heading', { level: 3 }).textContent())
      .toBe('Groups status, edited')
    expect(await card.getByTestId('status-page-facts').textContent()).toBe('Public · 1 group · 1 probe')
    const stored = (await admin.statusPages.list({ limit: 100 })).statusPages.find(
      (listed) => listed.slug === groupsSlug,
    )
    expect(stored).toMatchObject({ title: 'Groups status, edited', description: 'Jobs only now' })
    expect(stored?.groups.map((group) => group.name)).toEqual(['Jobs'])
  })
})

import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { baseUrl, clientAs } from './api.ts'
import { browserPages, checkA11y, checkNoOverflow, inspect, screenshot } from './helpers.ts'

// An operator tells an incident on a status page from its admin page, and the public page (JavaScript off) shows
// it with every update.

const pages = browserPages()
const suffix = crypto.randomUUID().slice(0, 8)
const slug = `ui-incidents-${suffix}`
const title = `Incidents status ${suffix}`
let browser: Browser

beforeAll(async () => {
  const admin = await clientAs()
  const probe = await admin.probes.create({
    name: `checkout heartbeat ${suffix}`,
    type: 'heartbeat',
    targetKind: 'external',
    target: `checkout-${suffix}`,
    config: { intervalSeconds: 3600, graceSeconds: 600 },
  })
  expect((await fetch(probe.heartbeatUrl ?? '')).status).toBe(200)
  await admin.statusPages.create({
    slug,
    title,
    public: true,
    groups: [{ name: 'Shop', probes: [{ probeId: probe.id, displayName: 'Checkout' }] }],
  })
  browser = await chromium.connect(inject('ui').browserEndpoint)
})

afterAll(async () => {
  await browser?.close()
})

describe('incidents of a status page', () => {
  it('are opened and updated from the page’s admin page, and read on the public page', async () => {
    const page = await pages.open('admin', '/monitoring/status-pages')
    const card = page.locator(`li[data-status-page="${slug}"]`)
    await card.getByRole('link', { name: `Incidents of ${title}` }).click()
    await page.getByRole('heading', { name: `Incidents of ${title}`, level: 1 }).waitFor()
    await page.getByText('No incidents yet.').waitFor()

    const form = page.getByRole('form', { name: 'Open an incident' })
    await form.getByLabel('Title').fill('Checkout is failing')
    await form.getByLabel('Impact').selectOption('major')
    await form.getByRole('checkbox', { name: 'Checkout' }).check()
    await form.getByLabel('Message').fill('Payments time out.\nWe are looking into it.')
    await form.getByRole('button', { name: 'Open incident' }).click()
    const incident = page.locator('li[data-incident]')
    await incident.waitFor()
    expect(await incident.getByRole('heading', { level: 3 }).textContent()).toBe('Checkout is failing')
    expect(await incident.getByTestId('incident-facts').textContent()).toMatch(
      /^investigating · major impact · opened /,
    )

    const update = page.getByRole('form', { name: 'Post an update to Checkout is failing' })
    await update.getByLabel('New state').selectOption('identified')
    await update.getByLabel('Update').fill('The payment provider is down; we switched to the backup.')
    await update.getByRole('button', { name: 'Post update' }).click()
    const updates = incident.getByRole('list', { name: 'Updates of Checkout is failing, newest first' })
    await expect.poll(() => updates.getByRole('listitem').count()).toBe(2)
    expect(await updates.getByRole('listitem').first().locator('strong').textContent()).toBe('identified')
    await inspect(page, 'status-page-incidents')

    const stored = await (await clientAs()).statusPages.list({ limit: 500 })
    const id = stored.statusPages.find((listed) => listed.slug === slug)?.id ?? ''
    const listed = await (await clientAs()).statusPages.incidents.list({ statusPageId: id })
    expect(listed.incidents.map((i) => [i.title, i.state, i.impact])).toEqual([
      ['Checkout is failing', 'identified', 'major'],
    ])
  })

  it('shows the open incident with every update on the public page, with JavaScript off, at both widths', async () => {
    const context = await browser.newContext({ baseURL: baseUrl(), javaScriptEnabled: false })
    try {
      const page = await context.newPage()
      expect((await page.goto(`/status/${slug}`))?.status()).toBe(200)
      const open = page.locator('.incidents.open .incident')
      expect(await open.locator('h3').textContent()).toBe('Checkout is failing')
      expect(await open.locator('.incident-facts').textContent()).toBe('Major impact · Affects Checkout')
      expect(await open.locator('.update-state').allTextContents()).toEqual(['Identified', 'Investigating'])
      // The message keeps its line break as rendered (the stylesheet's pre-line), which only innerText tells.
      const first = open.locator('.message').last()
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is checked
      expect((await first.innerText()).split('\n')).toEqual(['Payments time out.', 'We are looking into it.'])
      expect(await page.locator('.incidents.past').textContent()).toContain(
        'No incidents in the last 90 days.',
      )
      await screenshot(page, 'status-page-incident-no-js')
    } finally {
      await context.close()
    }
    // The checks run a script in the page, so they look at it with JavaScript on.
    const checked = await browser.newContext({ baseURL: baseUrl() })
    try {
      const page = await checked.newPage()
      await page.goto(`/status/${slug}`)
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 })
        await screenshot(page, `status-page-incident${width === 390 ? '.phone' : ''}`)
        await checkNoOverflow(page, 'status page with an incident')
        await checkA11y(page, `status page with an incident at ${width} px`)
      }
    } finally {
      await checked.close()
    }
  })
})

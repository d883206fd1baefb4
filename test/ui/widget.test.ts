import { randomInt } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY } from '../../src/lib/security-headers.ts'
import { baseUrl, clientAs } from './api.ts'
import { browserPages, inspect } from './helpers.ts'

// The changelog widget embedded on a page of another origin (a Node server on another 127.0.0.1 port): it loads
// /widget/changelog.js from the panel, reads the public feed and renders it inside its shadow root.

const pages = browserPages()
const series = `97.${randomInt(1_000_000)}`
// A release published today and one dated yesterday with the higher version: the feed lists today's first,
// which a sort by version (string or semver) would turn around.
const today = { version: `${series}.9`, title: `Faster deploys ${series}` }
const older = { version: `${series}.10`, title: `Older fixes ${series}` }
const german = { title: `Schnellere Deploys ${series}`, item: 'Parallele Uploads' }

// Page styles that would show if they leaked into the widget; #outside shows if the widget's leaked out. The
// page's #root is what pages.open waits for before it hands the page over.
const hostPage = (panel: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Embedding site</title>
  <style>* { text-transform: uppercase; letter-spacing: 4px; } h3, li, p { color: #c00 !important; }</style>
</head>
<body>
  <main id="root">
    <h1>Embedding site</h1>
    <h2>News from the panel</h2>
    <div id="news"></div>
    <p id="outside">Outside the widget</p>
  </main>
  <script src="${panel}/widget/changelog.js" data-lang="de-AT" data-target="#news" data-limit="50" async></script>
</body>
</html>`

// The shortest embed: no attributes, so the widget goes right after its tag, in the browser's language.
const plainPage = (panel: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Plain embed</title></head>
<body>
  <main id="root">
    <h1>Plain embed</h1>
    <script src="${panel}/widget/changelog.js" async></script>
  </main>
</body>
</html>`

let server: Server
let siteUrl = ''

beforeAll(async () => {
  const admin = await clientAs()
  const first = await admin.changelog.releases.create({
    version: today.version,
    title: today.title,
    severity: 'minor',
    summary: 'Deploys take half the time.',
    items: [{ category: 'new', text: 'Parallel uploads' }],
  })
  await admin.changelog.releases.setTranslation({
    id: first.id,
    lang: 'de',
    title: german.title,
    summary: 'Deploys dauern halb so lange.',
    items: [{ text: german.item }],
    machine: true,
  })
  await admin.changelog.releases.publish({ id: first.id })
  const second = await admin.changelog.releases.create({
    version: older.version,
    title: older.title,
    severity: 'patch',
    items: [{ category: 'fixed', text: 'Retry on timeout' }],
  })
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
  await admin.changelog.releases.publish({ id: second.id, date: yesterday })

  server = createServer((request, response) => {
    const html = request.url === '/plain' ? plainPage(baseUrl()) : hostPage(baseUrl())
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
})

/** The rendered releases (title, marker, lang) once the widget rendered, read through its open shadow root. */
async function widgetReleases(page: Page, host = '#news hosting-panel-changelog') {
  const widget = page.locator(host)
  await widget.locator('.release').first().waitFor()
  return widget.locator('.release').evaluateAll((items) =>
    items.map((item) => ({
      title: item.querySelector('.title')?.textContent,
      machine: item.querySelector('.machine')?.textContent ?? null,
      lang: item.getAttribute('lang'),
      items: [...item.querySelectorAll('.items li')].map((line) => line.textContent),
    })),
  )
}

// The browser's getComputedStyle, as the test files have no DOM types.
interface StyleWindow {
  getComputedStyle(node: Element): { getPropertyValue(name: string): string }
}

/** The computed value of a CSS property on the element the locator finds. */
function styleOf(locator: Locator, property: string): Promise<string> {
  return locator.evaluate(
    (node, name) => (globalThis as unknown as StyleWindow).getComputedStyle(node).getPropertyValue(name),
    property,
  )
}

describe('the changelog widget', () => {
  it('shows published releases on another origin, in German with the machine marker, in feed order', async () => {
    expect(new URL(siteUrl).origin).not.toBe(new URL(baseUrl()).origin)
    // The panel's policy travels with the script, as with every answer, and binds only the panel's own pages.
    const script = await fetch(`${baseUrl()}/widget/changelog.js`)
    await script.body?.cancel()
    expect(script.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    const page = await pages.open(null, siteUrl)
    const shown = await widgetReleases(page)
    const mine = shown.filter((release) => release.title?.includes(series))
    expect(mine).toEqual([
      { title: german.title, machine: 'Maschinell übersetzt', lang: 'de', items: [`Neu${german.item}`] },
      { title: older.title, machine: null, lang: null, items: ['BehobenRetry on timeout'] },
    ])

    // Nothing leaks either way: the page's styles stop at the shadow root, the widget's margins stay inside.
    const title = page.locator('hosting-panel-changelog .title').first()
    expect(await styleOf(title, 'text-transform')).toBe('none')
    expect(await styleOf(title, 'color')).not.toBe('rgb(204, 0, 0)')
    expect(await styleOf(page.locator('#outside'), 'margin-top')).not.toBe('0px')
    await inspect(page, 'widget-embedded')

    // The body and ETag are kept per panel origin; a reload sends the ETag and renders the stored body on 304.
    const stored = await page.evaluate(() => Object.keys(localStorage))
    expect(stored).toEqual([`hosting-panel-changelog:${new URL(baseUrl()).origin}`])
    const feedAnswers: number[] = []
    page.on('response', (response) => {
      if (response.url().endsWith('/api/v1/meta/changelog') && response.request().method() === 'GET')
        feedAnswers.push(response.status())
    })
    await page.reload()
    expect((await widgetReleases(page)).filter((release) => release.title?.includes(series))).toEqual(mine)
    expect(feedAnswers).toEqual([304])
  })
  it("falls back to the release's own text after its script tag when the reader's language has no translation", async () => {
    const page = await pages.open(null, `${siteUrl}plain`)
    const shown = await widgetReleases(page, 'main > script + hosting-panel-changelog')
    expect(shown.find((release) => release.title?.includes(series))).toEqual({
      title: today.title,
      machine: null,
      lang: null,
      items: ['NewParallel uploads'],
    })
    await inspect(page, 'widget-plain')
  })
})

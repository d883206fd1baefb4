import { mkdirSync } from 'node:fs'
import path from 'node:path'
import axe from 'axe-core'
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest'
import { SESSION_COOKIE } from '../../src/auth/session-cookie.ts'
import { adminCredentials, baseUrl, type Credentials, signIn } from './api.ts'

// The browser side of the UI tests. `browserPages()` in a test file connects to the run's one chromium; every page
// it opens lives in a fresh browser context (its own cookies), closed after the test, which fails if the page
// threw or logged an error. `inspect` (screenshots, no sideways scrolling and axe, at a desktop and a phone width) is
// called on every page a test reaches.

const SCREENSHOTS = path.join(import.meta.dirname, 'screenshots')

/** The widths every page is looked at: a desktop (the tests' own) and a phone. */
export const DESKTOP_WIDTH = 1280
export const PHONE_WIDTH = 390

/** Who a page is opened as: the admin, another user, or nobody (signed out). */
export type OpenAs = 'admin' | Credentials | null

export interface Pages {
  /**
   * A page in a fresh context, signed in as `as` (by its session cookie), at `path` once the app rendered;
   * `timezoneId` sets the browser's zone (the machine's by default), to show that times do not follow it.
   */
  open(as: OpenAs, path?: string, options?: { timezoneId?: string }): Promise<Page>
}

// Chromium logs every 4xx/5xx fetch as "Failed to load resource"; the pages' answer to those is what is tested.
const NETWORK_NOISE = /^Failed to load resource: the server responded with a status of \d+/

// The page's API calls still waiting for an answer; a stream (text/event-stream) counts as answered once it opens.
const pending = new WeakMap<Page, Set<Request>>()

function watchPage(page: Page, errors: string[]): void {
  const calls = new Set<Request>()
  pending.set(page, calls)
  page.on('request', (request) => {
    if (request.resourceType() === 'fetch' || request.resourceType() === 'xhr') calls.add(request)
  })
  page.on('response', (response) => {
    if (response.headers()['content-type']?.includes('text/event-stream')) calls.delete(response.request())
  })
  page.on('requestfinished', (request) => calls.delete(request))
  page.on('requestfailed', (request) => calls.delete(request))
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.stack ?? error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error' && !NETWORK_NOISE.test(message.text()))
      errors.push(`${page.url()}: console.error ${message.text()}`)
  })
}

/** Registers the file's browser hooks; call once at the top of a test file (or describe). */
export function browserPages(): Pages {
  let browser: Browser | null = null
  let contexts: BrowserContext[] = []
  let errors: string[] = []
  beforeAll(async () => {
    browser = await chromium.connect(inject('ui').browserEndpoint)
  })
  afterEach(async () => {
    const seen = errors
    await Promise.all(contexts.map((context) => context.close()))
    contexts = []
    errors = []
    expect(seen, 'errors in the page').toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
  })
  return {
    async open(as, at = '/', options = {}) {
      if (!browser) throw new Error('browserPages() must be called at the top of the test file')
      const context = await browser.newContext({
        baseURL: baseUrl(),
        viewport: { width: DESKTOP_WIDTH, height: 800 },
        ...options,
      })
      contexts.push(context)
      context.on('page', (page) => watchPage(page, errors))
      if (as) {
        const value = await signIn(as === 'admin' ? adminCredentials() : as)
        const { hostname } = new URL(baseUrl())
        const cookie = {
          name: SESSION_COOKIE,
          value,
          domain: hostname,
          path: '/',
          secure: true,
          httpOnly: true,
        }
        await context.addCookies([{ ...cookie, sameSite: 'Lax' }])
      }
      const page = await context.newPage()
      await page.goto(at)
      await settled(page)
      return page
    },
  }
}

/**
 * Waits until the app rendered, no API call is pending for 300 ms and nothing shows as loading (`.loading`,
 * `aria-busy="true"`); 15 s at most.
 */
export async function settled(page: Page): Promise<void> {
  const deadline = Date.now() + 15_000
  let quietSince = Date.now()
  let why = 'the app rendered nothing'
  while (Date.now() < deadline) {
    // A navigation in between destroys the page's context: that counts as still loading.
    const loading = await page
      .evaluate(
        `!document.querySelector('#root > *') || !!document.querySelector('.loading, [aria-busy="true"]')`,
      )
      .catch(() => true)
    const calls = [...(pending.get(page) ?? [])].map((request) => request.url())
    if (loading || calls.length > 0) {
      quietSince = Date.now()
      why = loading ? 'the page still shows as loading' : `API calls still pending: ${calls.join(', ')}`
    } else if (Date.now() - quietSince >= 300) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const body = ((await page.locator('body').textContent()) ?? '').slice(0, 300)
  throw new Error(`${page.url()} did not settle in 15 s (${why}); the page shows: ${body}`)
}

interface Violation {
  id: string
  impact: string | null
  help: string
  targets: string[]
}

/** Runs axe-core on the page as it is now; fails on any serious or critical violation, listing each. */
export async function checkA11y(page: Page, name: string): Promise<void> {
  // Evaluated through the DevTools protocol, so a Content-Security-Policy cannot block the injection.
  if (!(await page.evaluate(`typeof window.axe === 'object'`))) await page.evaluate(axe.source)
  const violations = await page.evaluate<Violation[]>(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((result) => result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((node) => node.target.join(' ')),
    })))`)
  const blocking = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`)
  expect(blocking, `accessibility of ${name}`).toEqual([])
}

/** Saves a full-page screenshot to test/ui/screenshots/<name>.png (git-ignored; CI keeps it as an artifact). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** Fails when the page scrolls sideways at its current width: wide content must scroll inside its own box. */
export async function checkNoOverflow(page: Page, name: string): Promise<void> {
  const { width, scrollWidth, widest } = await page.evaluate<{
    width: number
    scrollWidth: number
    widest: string
  }>(`(() => {
    const width = window.innerWidth
    // The deepest elements reaching past the right edge, to say what overflows.
    const past = [...document.body.querySelectorAll('*')].filter(
      (el) => el.getBoundingClientRect().right > width + 0.5 && ![...el.children].some(
        (child) => child.getBoundingClientRect().right > width + 0.5,
      ),
    )
    const describe = (el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"'
    return { width, scrollWidth: document.documentElement.scrollWidth, widest: past.slice(0, 3).map(describe).join(', ') }
  })()`)
  expect(scrollWidth, `${name} at ${width} px scrolls sideways (${widest})`).toBeLessThanOrEqual(width)
}

/**
 * What every test does on every page it reaches: at the desktop width and at the phone width, a screenshot
 * (<name>.png and <name>.phone.png), no sideways scrolling and the accessibility check. The page is left at the
 * desktop width.
 */
export async function inspect(page: Page, name: string): Promise<void> {
  const height = page.viewportSize()?.height ?? 800
  try {
    for (const [width, suffix] of [
      [DESKTOP_WIDTH, ''],
      [PHONE_WIDTH, '.phone'],
    ] as const) {
      await page.setViewportSize({ width, height })
      // One frame, so layout (and anything sized by a ResizeObserver) follows the new width.
      await page.evaluate(
        'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
      )
      await screenshot(page, `${name}${suffix}`)
      await checkNoOverflow(page, name)
      await checkA11y(page, `${name} at ${width} px`)
    }
  } finally {
    await page.setViewportSize({ width: DESKTOP_WIDTH, height })
  }
}

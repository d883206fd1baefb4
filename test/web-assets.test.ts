import { env, SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { Env } from '../src/env'

// SELF skips the asset router that production puts in front of the Worker, so these requests take the Worker's
// not-found fallback to env.ASSETS: the path a request outside run_worker_first takes when no asset matches.
const ORIGIN = 'https://panel.test'
const workerEnv = env as unknown as Env

async function get(path: string, init: RequestInit = {}): Promise<{ response: Response; text: string }> {
  const response = await SELF.fetch(`${ORIGIN}${path}`, init)
  return { response, text: await response.text() }
}

/** The entry script index.html names: a content-hashed file under /assets/. */
async function entryScript(): Promise<string> {
  const { text } = await get('/')
  const src = text.match(/<script[^>]+src="(\/assets\/[^"]+\.js)"/)?.[1]
  if (!src) throw new Error(`index.html names no /assets/*.js script:\n${text}`)
  return src
}

describe('the web interface', () => {
  it('should answer / with index.html, revalidated on every load', async () => {
    const { response, text } = await get('/')
    expect(response.status, text).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(text).toContain('<div id="root">')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('should answer a page path the browser routes (/sites/abc) with the same index.html', async () => {
    const [root, page] = await Promise.all([get('/'), get('/sites/abc')])
    expect(page.response.status, page.text).toBe(200)
    expect(page.response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.response.headers.get('cache-control')).toBe('no-cache')
    expect(page.text).toBe(root.text)
  })

  it('should answer HEAD like GET, without a body', async () => {
    const { response, text } = await get('/users', { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(text).toBe('')
  })

  it('should cache a hashed asset immutably for a year', async () => {
    const { response, text } = await get(await entryScript())
    expect(response.status, text).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/javascript/)
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  })

  it('should apply the same caching through the ASSETS binding itself', async () => {
    const script = await workerEnv.ASSETS.fetch(`${ORIGIN}${await entryScript()}`)
    const page = await workerEnv.ASSETS.fetch(`${ORIGIN}/tokens`)
    await Promise.all([script.body?.cancel(), page.body?.cancel()])
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('cache-control')).toBe('no-cache')
  })

  it('should serve the changelog widget as JavaScript cached for five minutes (its URL never changes)', async () => {
    const { response, text } = await get('/widget/changelog.js')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/javascript/)
    expect(response.headers.get('cache-control')).toBe('public, max-age=300')
    expect(text).toContain('attachShadow')
  })

  it('should not serve the _headers file itself', async () => {
    const { text } = await get('/_headers')
    expect(text).not.toContain('Cache-Control')
  })
})

describe('the API beside the web interface', () => {
  it('should keep answering an unknown /api path with the JSON problem 404, not index.html', async () => {
    const { response, text } = await get('/api/nope')
    expect(response.status, text).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(JSON.parse(text)).toMatchObject({ code: 'not_found', status: 404 })
  })

  it('should answer a write to a page path with the problem 404, not index.html', async () => {
    const { response, text } = await get('/users', { method: 'POST', body: '{}' })
    expect(response.status, text).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('should run no cron for the local trigger paths: only wrangler dev serves them', async () => {
    const cron = encodeURIComponent('* * * * *')
    for (const path of [`/__scheduled?cron=${cron}`, `/cdn-cgi/local/scheduled?cron=${cron}`]) {
      const { response, text } = await get(path)
      expect(response.status, path).toBe(200)
      expect(text, path).toContain('<div id="root">')
    }
  })

  it('should keep /healthz on the Worker', async () => {
    const { response, text } = await get('/healthz')
    expect(response.status).toBe(200)
    expect(text).toBe('ok')
  })
})

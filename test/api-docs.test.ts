import { SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'

// The OpenAPI document and the reference UI at /docs that reads it. Like web-assets.test.ts, /docs takes the
// Worker's not-found fallback to env.ASSETS (the built web/dist), the path production takes when no asset matches.
const ORIGIN = 'https://panel.test'
const DOCUMENT = `${ORIGIN}/api/v1/openapi.json`

describe('the OpenAPI document', () => {
  it('should carry a strong ETag, be open to any origin and revalidate rather than be stored', async () => {
    const response = await SELF.fetch(DOCUMENT, { headers: { origin: 'https://tools.example' } })
    const body = await response.text()
    expect(response.status, body).toBe(200)
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(JSON.parse(body)).toMatchObject({ openapi: '3.1.0' })
  })

  it('should answer a matching If-None-Match with 304 and no body, a stale one with the document', async () => {
    const first = await SELF.fetch(DOCUMENT)
    await first.body?.cancel()
    const etag = first.headers.get('etag') ?? ''
    const again = await SELF.fetch(DOCUMENT, { headers: { 'if-none-match': `"stale", W/${etag}` } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    expect(again.headers.get('access-control-allow-origin')).toBe('*')
    const stale = await SELF.fetch(DOCUMENT, {
      headers: { 'if-none-match': '"0123456789abcdef0123456789abcdef"' },
    })
    expect(stale.status).toBe(200)
    expect(JSON.parse(await stale.text())).toMatchObject({ openapi: '3.1.0' })
  })

  it('should name the origin it was asked on as its server, so each origin has its own ETag', async () => {
    const [here, there] = await Promise.all([
      SELF.fetch(DOCUMENT),
      SELF.fetch('https://other.test/api/v1/openapi.json'),
    ])
    const [hereDoc, thereDoc] = (await Promise.all([here.json(), there.json()])) as {
      servers: { url: string }[]
    }[]
    expect(hereDoc?.servers).toEqual([{ url: ORIGIN }])
    expect(thereDoc?.servers).toEqual([{ url: 'https://other.test' }])
    expect(here.headers.get('etag')).not.toBe(there.headers.get('etag'))
  })

  it('should answer the CORS preflight of a conditional GET from another origin', async () => {
    const response = await SELF.fetch(DOCUMENT, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://tools.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toContain('GET')
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-none-match')
  })
})

describe('the API reference at /docs', () => {
  it('should serve a static page that loads only the panel’s own scripts and styles, no inline script', async () => {
    const response = await SELF.fetch(`${ORIGIN}/docs/`)
    const html = await response.text()
    expect(response.status, html).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.map(([, attributes]) => attributes?.match(/src="([^"]+)"/)?.[1])).toEqual([
      '/docs/swagger-ui-bundle.js',
      '/docs/init.js',
    ])
    expect(scripts.every(([, , inline]) => inline?.trim() === '')).toBe(true)
    expect(html).toContain('href="/docs/swagger-ui.css"')
    expect(html).not.toMatch(/https?:\/\//)
  })

  it('should serve the Swagger UI bundle, its stylesheet, and the script pointing it at the OpenAPI document', async () => {
    const [bundle, css, init] = await Promise.all(
      ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js'].map((path) =>
        SELF.fetch(`${ORIGIN}${path}`),
      ),
    )
    expect(bundle?.status).toBe(200)
    expect(bundle?.headers.get('content-type')).toMatch(/javascript/)
    expect(await bundle?.text()).toContain('SwaggerUIBundle')
    expect(css?.status).toBe(200)
    expect(css?.headers.get('content-type')).toMatch(/^text\/css/)
    await css?.body?.cancel()
    const script = (await init?.text()) ?? ''
    expect(init?.headers.get('content-type')).toMatch(/javascript/)
    expect(script).toContain("'/api/v1/openapi.json'")
    // Swagger UI would otherwise send the document to its public validator.
    expect(script).toContain('validatorUrl: null')
  })

  it('should send /docs to /docs/', async () => {
    const response = await SELF.fetch(`${ORIGIN}/docs`, { redirect: 'manual' })
    await response.body?.cancel()
    expect(response.status).toBe(307)
    expect(new URL(response.headers.get('location') ?? '', ORIGIN).pathname).toBe('/docs/')
  })
})

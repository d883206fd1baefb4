import { env, SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { Env } from '../src/env'
import { CONTENT_SECURITY_POLICY, STRICT_TRANSPORT_SECURITY } from '../src/lib/security-headers'

// The static pages get their headers from web/public/_headers (through the ASSETS binding, as in production),
// the API's answers from the Worker's middleware: both must carry the same policy and HSTS.
const ORIGIN = 'https://panel.test'
const workerEnv = env as unknown as Env

async function headersOf(path: string, init: RequestInit = {}): Promise<Headers> {
  const response = await SELF.fetch(`${ORIGIN}${path}`, init)
  await response.body?.cancel()
  return response.headers
}

/** The directives of a policy, by name. */
function directives(policy: string | null): Map<string, string> {
  return new Map(
    (policy ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name = '', ...values] = part.split(/\s+/)
        return [name, values.join(' ')]
      }),
  )
}

describe('the restrictive policy', () => {
  it("should run only the panel's own scripts, take no plugins or <base>, and never be framed", () => {
    const policy = directives(CONTENT_SECURITY_POLICY)
    expect(policy.get('default-src')).toBe("'self'")
    expect(policy.get('script-src')).toBe("'self'")
    expect(policy.get('style-src')).toBe("'self'")
    expect(policy.get('object-src')).toBe("'none'")
    expect(policy.get('base-uri')).toBe("'none'")
    expect(policy.get('frame-ancestors')).toBe("'none'")
    expect(STRICT_TRANSPORT_SECURITY).toBe('max-age=31536000; includeSubDomains')
  })
})

describe('security headers on the pages', () => {
  it.each(['/', '/sites/abc', '/account'])('should send the policy and HSTS with %s', async (path) => {
    const headers = await headersOf(path)
    expect(headers.get('content-type')).toMatch(/^text\/html/)
    expect(headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY)
    expect(headers.get('x-frame-options')).toBe('DENY')
    expect(headers.get('cross-origin-opener-policy')).toBe('same-origin')
  })

  it('should send them from the ASSETS binding itself, as production serves the pages before the Worker runs', async () => {
    const page = await workerEnv.ASSETS.fetch(`${ORIGIN}/fleet`)
    await page.body?.cancel()
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(page.headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY)
  })

  it('should hold the API reference under /docs to the same policy: no inline style or script', async () => {
    for (const path of ['/docs', '/docs/']) {
      expect((await headersOf(path)).get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY)
    }
  })

  it('should keep the widget script embeddable: JavaScript, no CORP or COEP that would stop another origin loading it', async () => {
    const headers = await headersOf('/widget/changelog.js')
    expect(headers.get('content-type')).toMatch(/javascript/)
    expect(headers.get('cross-origin-resource-policy')).toBeNull()
    expect(headers.get('cross-origin-embedder-policy')).toBeNull()
    expect(headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY)
  })
})

describe('security headers on the API', () => {
  it.each([
    [
      'a procedure answer',
      '/api/rpc/auth.me',
      { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } },
    ],
    ['a problem answer', '/api/nope', {}],
    ['the OpenAPI document', '/api/v1/openapi.json', {}],
    ['the changelog feed', '/api/v1/meta/changelog', { headers: { origin: 'https://customer.example' } }],
    ['the liveness check', '/healthz', {}],
  ])('should send the policy and HSTS with %s', async (_name, path, init) => {
    const headers = await headersOf(path, init as RequestInit)
    expect(headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY)
  })

  it("should keep the widget's API open to other origins", async () => {
    const headers = await headersOf('/api/v1/meta/changelog', {
      headers: { origin: 'https://customer.example' },
    })
    expect(headers.get('access-control-allow-origin')).toBe('*')
  })
})

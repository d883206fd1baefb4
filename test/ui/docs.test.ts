import { describe, expect, it } from 'vitest'
import { baseUrl } from './api.ts'
import { browserPages, screenshot } from './helpers.ts'

// /docs: Swagger UI renders the panel's OpenAPI document from the panel's own files. The page is loaded under the
// production Content-Security-Policy (added here when the answer carries none); Chromium reports a violation as
// a console error, which fails the test. axe is not run here: Swagger UI's own markup has serious findings
// (colour contrast, controls nested in its operation headers, the unlabelled server select) the panel cannot fix.
const CSP = "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

const pages = browserPages()

describe('the API reference', () => {
  it('renders the OpenAPI document at /docs under the CSP, asking nothing of any other origin', async () => {
    const page = await pages.open(null)
    const requests: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    await page.route('**/docs/', async (route) => {
      const response = await route.fetch()
      const headers = response.headers()
      headers['content-security-policy'] ??= CSP
      await route.fulfill({ response, headers })
    })
    // A deep link opens the operation (Swagger UI renders only the operations near the viewport).
    await page.goto('/docs/#/probes/probes.create')
    await page.getByRole('heading', { name: /Hosting Panel API/ }).waitFor()
    const operation = page.locator('.opblock.is-open', { hasText: '/api/v1/probes/create' })
    await operation.getByRole('button', { name: 'Try it out' }).waitFor()
    expect(await operation.getByText('probes:manage').count()).toBeGreaterThan(0)
    await screenshot(page, 'docs')
    expect(requests).toContain(`${baseUrl()}/api/v1/openapi.json`)
    expect(requests.filter((url) => !url.startsWith(baseUrl()))).toEqual([])
  })
})

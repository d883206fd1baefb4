import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY, STRICT_TRANSPORT_SECURITY } from '../../src/lib/security-headers.ts'
import { browserPages, settled } from './helpers.ts'

// Every page under the panel's Content-Security-Policy, as wrangler dev serves it from web/public/_headers: the
// policy is on the document, and the page reports no violation (an inline style or script, a foreign source).

const pages = browserPages()

const PAGES = [
  '/',
  '/fleet',
  '/dns/zones',
  '/dns/nameservers',
  '/dns/accounts',
  '/monitoring',
  '/changelog',
  '/changelog/webhooks',
  '/changelog/mirror',
  '/users',
  '/tokens',
  '/audit',
  '/account',
]

// Injected through the DevTools protocol before any page script, so the policy cannot block it.
const RECORD_VIOLATIONS = `
  window.__violations = []
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__violations.push(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber)
  })
`

async function visit(page: Page, path: string): Promise<{ policy: string | null; violations: string[] }> {
  const response = await page.goto(path)
  await settled(page)
  const violations = await page.evaluate<string[]>('window.__violations')
  return { policy: (await response?.allHeaders())?.['content-security-policy'] ?? null, violations }
}

describe('the Content-Security-Policy', () => {
  it('is on every page, with HSTS, and no page violates it', async () => {
    const page = await pages.open('admin', '/')
    await page.addInitScript(RECORD_VIOLATIONS)
    for (const path of PAGES) {
      const { policy, violations } = await visit(page, path)
      expect(policy, path).toBe(CONTENT_SECURITY_POLICY)
      expect(violations, path).toEqual([])
    }
    const response = await page.goto('/fleet')
    expect((await response?.allHeaders())?.['strict-transport-security']).toBe(STRICT_TRANSPORT_SECURITY)
  })

  it('holds on the sign-in page, signed out', async () => {
    const page = await pages.open(null, '/')
    await page.addInitScript(RECORD_VIOLATIONS)
    const { policy, violations } = await visit(page, '/')
    await page.getByRole('form', { name: 'Sign in' }).waitFor()
    expect(policy).toBe(CONTENT_SECURITY_POLICY)
    expect(violations).toEqual([])
  })
})

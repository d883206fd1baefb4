import { randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { baseUrl } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The changelog pages: an admin adds a webhook, drafts a release with an item, translates it (machine flag),
// publishes it and sees it in the public feed and among the webhook's deliveries, then reads the mirror page.

const pages = browserPages()
const version = `96.${randomInt(1_000_000)}.0`

describe('the changelog pages', () => {
  it('adds a webhook, drafts, translates and publishes a release', async () => {
    const page = await pages.open('admin', '/changelog/webhooks')
    await page.getByRole('heading', { level: 1, name: 'Changelog webhooks' }).waitFor()
    const hookForm = page.getByRole('form', { name: 'Add a webhook' })
    const hookUrl = `http://127.0.0.1:9/hooks/${randomInt(1_000_000)}`
    await hookForm.getByLabel('URL').fill(hookUrl)
    await hookForm.getByLabel('Secret').fill('short')
    await hookForm.getByRole('button', { name: 'Add webhook' }).click()
    // The input's minLength stops the browser; the panel is asked only with a secret of 16 characters or more.
    await hookForm.getByLabel('Secret').fill('a-webhook-secret-of-some-length')
    await hookForm.getByRole('button', { name: 'Add webhook' }).click()
    await page.getByRole('cell', { name: hookUrl, exact: true }).waitFor()
    await inspect(page, 'changelog-webhooks')

    await page.getByRole('navigation', { name: 'Changelog' }).getByRole('link', { name: 'Releases' }).click()
    await page.getByRole('heading', { level: 2, name: 'Draft a release' }).waitFor()
    await settled(page)
    const draft = page.getByRole('form', { name: 'Save draft' })
    await draft.getByLabel('Version').fill(version)
    await draft.getByLabel('Title').fill('Faster <b>backups</b>')
    await draft.getByLabel('Severity').selectOption('minor')
    await draft.getByRole('button', { name: 'Add an item' }).click()
    await draft.getByLabel('Text of item 1').fill('Backups run in parallel')
    await draft.getByRole('button', { name: 'Save draft' }).click()
    // Markup is refused, and the message stands next to the title.
    const titleError = draft.getByLabel('Title').locator('xpath=..').locator('.field-error')
    await expect.poll(() => titleError.count()).toBe(1)
    await inspect(page, 'changelog-draft-invalid')
    await draft.getByLabel('Title').fill('Faster backups')
    await draft.getByRole('button', { name: 'Save draft' }).click()

    await page.getByRole('heading', { level: 1, name: `${version}: Faster backups` }).waitFor()
    await expect.poll(() => page.getByTestId('release-state').textContent()).toMatch(/^draft/)
    await page.getByRole('button', { name: 'Add a translation' }).click()
    const translation = page.getByRole('form', { name: 'Add a translation' })
    await translation.getByLabel('Language tag').fill('de')
    await translation.getByLabel('Title').fill('Schnellere Backups')
    await translation.getByLabel('Item 1').fill('Backups laufen parallel')
    await translation.getByLabel(/Machine translation/).check()
    await translation.getByRole('button', { name: 'Save translation' }).click()
    await page.getByRole('cell', { name: 'Schnellere Backups' }).waitFor()
    await inspect(page, 'changelog-release-draft')

    await page.getByRole('button', { name: 'Publish release' }).click()
    await expect.poll(() => page.getByTestId('release-state').textContent()).toMatch(/^published/)
    await page.getByRole('button', { name: 'Unpublish release' }).waitFor()
    await inspect(page, 'changelog-release-published')

    const feed = (await (await fetch(`${baseUrl()}/api/v1/meta/changelog`)).json()) as {
      releases: { version: string; i18n?: Record<string, { title: string; machine: boolean }> }[]
    }
    const published = feed.releases.find((release) => release.version === version)
    expect(published?.i18n?.de).toMatchObject({ title: 'Schnellere Backups', machine: true })

    await page.getByRole('navigation', { name: 'Changelog' }).getByRole('link', { name: 'Releases' }).click()
    const row = page.locator(`tr[data-release="${version}"]`)
    await expect.poll(() => row.getByTestId('release-state').textContent()).toBe('published')
    await inspect(page, 'changelog-releases')

    await page.getByRole('navigation', { name: 'Changelog' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { level: 2, name: 'Recent deliveries' }).waitFor()
    // Other tests' webhooks get this release too: show this test's target only.
    await page.getByLabel('Target').selectOption({ label: hookUrl })
    // The deliveries are written just after the publish commits: refresh until this release's shows.
    const delivery = page.locator(`tr[data-delivery="${version}"]`)
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click()
        await settled(page)
        return delivery.count()
      })
      .toBe(1)
    await inspect(page, 'changelog-webhook-deliveries')
  })

  it('shows the mirror settings and the last pull', async () => {
    const page = await pages.open('admin', '/changelog/mirror')
    await page.getByRole('heading', { level: 1, name: 'Changelog mirror' }).waitFor()
    await expect.poll(() => page.getByTestId('mirror-last-pull').textContent()).toBe('never')
    await page.getByLabel(/Upstream feed URL/).waitFor()
    await inspect(page, 'changelog-mirror')
  })
})

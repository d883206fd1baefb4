import { randomInt } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { baseUrl, clientAs, createUser } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The jobs page: a changelog webhook whose receiver keeps answering 503 runs out of attempts for real, shows as
// dead with the receiver's answer, and the admin's Retry delivers it once the receiver is back. The day of retries
// before the last attempt is skipped: the test writes 17 spent attempts and a day-old touch on the delivery through
// wrangler dev's local D1 explorer (a development tool, absent in production), then the real delivery sweep starts
// the last attempt.

const pages = browserPages()
const EXPLORER = '/cdn-cgi/local/explorer/api'

let healthy = false
const receiver: Server = createServer((request, response) => {
  request.resume()
  response.statusCode = healthy ? 200 : 503
  response.end()
})
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

/** Runs one statement on the panel's local D1 through wrangler dev's explorer. */
async function localSql(sql: string, params: string[]): Promise<void> {
  const list = await fetch(`${baseUrl()}${EXPLORER}/d1/database`)
  const databases = ((await list.json()) as { result: { uuid: string; name: string }[] }).result
  const database = databases.find((d) => d.name === 'hosting-panel') ?? databases[0]
  if (!database) throw new Error(`the local explorer lists no D1 database: ${JSON.stringify(databases)}`)
  const response = await fetch(`${baseUrl()}${EXPLORER}/d1/database/${database.uuid}/raw`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sql, params }),
  })
  if (!response.ok) throw new Error(`local D1 answered ${response.status}: ${await response.text()}`)
}

/** Runs the 10-minute cron's tasks now (the delivery sweep among them). */
async function runTenMinuteCron(): Promise<void> {
  const response = await fetch(`${baseUrl()}/__scheduled?cron=${encodeURIComponent('*/10 * * * *')}`)
  if (!response.ok) throw new Error(`/__scheduled answered ${response.status}`)
}

describe('the jobs page', () => {
  it('shows a webhook delivery that ran out of attempts and retries it', async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const { port } = receiver.address() as AddressInfo
    const admin = await clientAs()
    const target = await admin.changelog.webhooks.create({
      url: `http://127.0.0.1:${port}/jobs-hook`,
      secret: 'a-webhook-secret-of-some-length',
    })
    const version = `97.${randomInt(1_000_000)}.0`
    const release = await admin.changelog.releases.create({ version, title: 'Jobs', severity: 'patch' })
    await admin.changelog.releases.publish({ id: release.id })
    const delivery = async () => (await admin.changelog.webhooks.deliveries({ targetId: target.id }))[0]

    await expect.poll(async () => (await delivery())?.status, { timeout: 15_000 }).toBe('retrying')
    const stalled = await delivery()
    expect(stalled).toMatchObject({ attempts: 1, lastStatusCode: 503 })
    await localSql('UPDATE changelog_webhook_deliveries SET attempts = 17, updated_at = ? WHERE id = ?', [
      String(Date.now() - 24 * 60 * 60 * 1000),
      stalled?.id ?? '',
    ])
    await runTenMinuteCron()
    await expect.poll(async () => (await delivery())?.status, { timeout: 15_000 }).toBe('failed')
    expect(await delivery()).toMatchObject({ status: 'failed', attempts: 18 })

    const page = await pages.open('admin', '/jobs')
    await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor()
    await page.getByRole('form', { name: 'Filter the jobs' }).getByLabel('State').selectOption('dead')
    await page
      .getByRole('form', { name: 'Filter the jobs' })
      .getByLabel('Kind')
      .selectOption('changelog.webhook-delivery')
    const row = page.getByRole('row').filter({ hasText: `changelog ${version} to 127.0.0.1:${port}` })
    await row.waitFor()
    await settled(page)
    expect(await row.textContent()).toMatch(/503/)
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('18')
    await inspect(page, 'jobs-dead')

    healthy = true
    await row.getByRole('button', { name: /^Retry/ }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Sent again: Changelog webhook delivery for changelog ${version}` })
      .waitFor()
    await expect.poll(async () => (await delivery())?.status, { timeout: 15_000 }).toBe('delivered')

    await page.getByRole('form', { name: 'Filter the jobs' }).getByLabel('State').selectOption('succeeded')
    await page
      .getByRole('row')
      .filter({ hasText: `changelog ${version} to 127.0.0.1:${port}` })
      .waitFor()
    await settled(page)
    await inspect(page, 'jobs-succeeded')
  })

  it('offers no Retry to an operator, who may still read the jobs', async () => {
    const page = await pages.open(await createUser('operator'), '/jobs')
    await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor()
    await page.getByRole('row').filter({ hasText: 'changelog' }).first().waitFor()
    await settled(page)
    expect(await page.getByRole('columnheader', { name: 'Retry' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /^Retry/ }).count()).toBe(0)
    await inspect(page, 'jobs-operator')
  })
})

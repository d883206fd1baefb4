import { randomInt } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { baseUrl, clientAs, createUser } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// The jobs page: a changelog webhook whose receiver keeps answering 503 runs out of attempts for real (each
// delivery sweep, run as if a day had passed, starts a fresh attempt), shows as dead with the receiver's answer,
// and the admin's Retry delivers it once the receiver is back.

const pages = browserPages()
const DAY_LATER_MS = 14 * 60 * 60 * 1000

let healthy = false
const receiver: Server = createServer((request, response) => {
  request.resume()
  response.statusCode = healthy ? 200 : 503
  response.end()
})
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

/** Runs the 10-minute sweeps as their trigger would fire half a day after now. */
async function sweepLater(): Promise<void> {
  const cron = encodeURIComponent('*/10 * * * *')
  const response = await fetch(`${baseUrl()}/__scheduled?cron=${cron}&time=${Date.now() + DAY_LATER_MS}`)
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

    // Each attempt fails with the receiver's 503; a sweep half a day later finds the delivery stalled and starts
    // the next attempt at once, until its 18 attempts are spent.
    let seen = 0
    for (let round = 0; round < 30; round++) {
      await expect
        .poll(async () => (await delivery())?.attempts ?? 0, { timeout: 10_000 })
        .toBeGreaterThan(seen)
      const current = await delivery()
      if (current?.status === 'failed') break
      seen = current?.attempts ?? 0
      // Wait for the attempt to record its answer before the next sweep looks at the delivery.
      await expect.poll(async () => (await delivery())?.status, { timeout: 10_000 }).toBe('retrying')
      await sweepLater()
    }
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

import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clientAs } from './api.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// A probe's page as the operator trial of 2026-11-28 read it: a probe never checked says what it waits for (not
// "paused"), "Send a test" reaches each of its channels, and the history chart reads in UTC in a browser that
// is not.

const pages = browserPages()
const run = promisify(execFile)
const tag = () => randomUUID().slice(0, 8)
const PANEL_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/

// A local ntfy stand-in: every test message it receives, answered 200.
const received: string[] = []
const ntfy = createServer((request, response) => {
  received.push(request.url ?? '')
  request.resume()
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"ui2"}'))
})
let ntfyOrigin = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => ntfy.listen(0, '127.0.0.1', resolve))
  ntfyOrigin = `http://127.0.0.1:${(ntfy.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => ntfy.close(resolve))
})

describe('a probe page', () => {
  it('shows a heartbeat never pinged as waiting for its first ping, on the list and its page', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-unpinged-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'weekly report',
    })
    // The API keeps the contract's state; the pages say what it means.
    expect(probe.state).toBe('paused')
    const page = await pages.open('admin', '/monitoring')
    const row = page.locator('tr', { has: page.getByRole('link', { name: probe.name, exact: true }) })
    await expect.poll(() => row.getByTestId('probe-state').textContent()).toBe('○ waiting for its first ping')
    await page.getByRole('link', { name: probe.name, exact: true }).click()
    await page.getByRole('heading', { level: 1, name: probe.name }).waitFor()
    await settled(page)
    const state = await page.getByTestId('probe-state').textContent()
    expect(state).toMatch(/^○ waiting for its first ping · heartbeat/)
    expect(state).not.toContain('paused')
    await inspect(page, 'probe-waiting')

    // Paused by hand, it reads paused again.
    await admin.probes.setEnabled({ id: probe.id, enabled: false })
    await page.reload()
    await settled(page)
    expect(await page.getByTestId('probe-state').textContent()).toMatch(/^❚❚ paused · .* · paused by hand$/)
  })

  it('sends a test to each notification channel of the probe and shows each answer', async () => {
    const admin = await clientAs()
    const names = [`ui-ops-${tag()}`, `ui-oncall-${tag()}`]
    const channels = await Promise.all(
      names.map((name) =>
        admin.notifications.channels.create({
          kind: 'ntfy',
          name,
          config: { topicUrl: `${ntfyOrigin}/${name}` },
        }),
      ),
    )
    const probe = await admin.probes.create({
      name: `ui-notified-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'notified job',
      notifyConfig: { channels: channels.map((channel) => channel.id) },
    })
    const page = await pages.open('admin', `/monitoring/probes/${probe.id}`)
    const section = page.getByRole('region', { name: 'Test the notifications' })
    await section.getByRole('button', { name: 'Send a test' }).click()
    const answers = section.getByTestId('probe-test-answers').getByRole('listitem')
    await expect.poll(() => answers.count()).toBe(2)
    for (const [index, name] of names.entries())
      expect(await answers.nth(index).textContent()).toMatch(
        new RegExp(`^${name}: Delivered · status 200 · `),
      )
    expect(received).toEqual(expect.arrayContaining(names.map((name) => `/${name}`)))
    await inspect(page, 'probe-test-sent')
  })

  it('draws the history chart in UTC in a browser whose zone is not UTC', async () => {
    const admin = await clientAs()
    const probe = await admin.probes.create({
      name: `ui-chart-${tag()}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'chart job',
      config: { intervalSeconds: 3600 },
    })
    await run('curl', ['-fsS', '-m', '10', probe.heartbeatUrl ?? ''])
    const page = await pages.open('admin', `/monitoring/probes/${probe.id}`, {
      timezoneId: 'America/Los_Angeles',
    })
    expect(await page.evaluate('new Date(0).getTimezoneOffset()')).not.toBe(0)
    // The heartbeat's rollups reach D1 a minute after the ping: read the history again until it has a point.
    const chart = page.locator('figure.chart')
    await expect
      .poll(
        async () => {
          if ((await chart.count()) === 0) {
            await page.reload()
            await settled(page)
          }
          return chart.locator('canvas').count()
        },
        { timeout: 120_000, interval: 5000 },
      )
      .toBeGreaterThan(0)
    // The first check's change reads from what the probe waited for, not from paused.
    const first = page.getByRole('region', { name: 'Events' }).getByRole('row').last()
    expect(await first.getByRole('cell').nth(1).textContent()).toBe('○ waiting for its first ping')
    await chart.locator('.u-over').hover()
    const time = chart.locator('.u-legend .u-series').first()
    expect(await time.locator('.u-label').textContent()).toBe('Time (UTC)')
    await expect.poll(() => time.locator('.u-value').textContent()).toMatch(PANEL_TIME)
    await inspect(page, 'probe-chart-utc')
  }, 180_000)
})

import { randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserPages, inspect } from './helpers.ts'

// Monitoring → Channels: an admin adds an ntfy channel pointing at a local fake ntfy server, sees it listed with
// its topic masked, presses Test and reads the server's answer; the fake received ntfy's wire format.

const pages = browserPages()
const received: { url: string; headers: IncomingHttpHeaders; body: string }[] = []
const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk: Buffer) => {
    body += chunk.toString()
  })
  request.on('end', () => {
    received.push({ url: request.url ?? '', headers: request.headers, body })
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ id: 'ui1', event: 'message', topic: 'alerts' }))
  })
})
let origin = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

describe('the channels page', () => {
  it('adds an ntfy channel, lists it without its secret and shows the answer to a test', async () => {
    const name = `ui-ntfy-${randomUUID().slice(0, 8)}`
    const page = await pages.open('admin', '/monitoring/channels')
    await page.getByRole('heading', { level: 1, name: 'Notification channels' }).waitFor()
    const form = page.getByRole('form', { name: 'New channel' })
    await form.getByLabel('Kind').selectOption('ntfy')
    await form.getByLabel('Name').fill(name)
    await form.getByLabel('Topic URL').fill(`${origin}/alerts-secret-topic`)
    await form.getByRole('button', { name: 'Add channel' }).click()

    const row = page.locator('tr', { has: page.getByRole('cell', { name, exact: true }) })
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.textContent()).toContain(`${origin}/***`)
    expect(await page.content()).not.toContain('alerts-secret-topic')
    await inspect(page, 'monitoring-channels')

    await row.getByRole('button', { name: `Send a test to ${name}` }).click()
    await expect
      .poll(() => row.getByRole('status').textContent())
      .toMatch(/^Delivered · status 200 · delivered · answered 200: delivered/)
    expect(received).toHaveLength(1)
    expect(received[0]?.url).toBe('/alerts-secret-topic')
    expect(received[0]?.headers.title).toBe(`[TEST] ${name}`)
    expect(received[0]?.headers.tags).toBe('test_tube')
    await inspect(page, 'monitoring-channels-tested')
  })
})

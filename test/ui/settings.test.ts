import { randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../node-agent/testing/harness.ts'
import { verifyServiceSignature } from '../../src/lib/service-signature.ts'
import { clientAs, runMinuteCron } from './api.ts'
import { FAKE_AGENT_SECRET } from './fake-agent.ts'
import { browserPages, inspect, settled } from './helpers.ts'

// Settings → Notifications: an admin saves the recipients and the signed webhook, a node stops answering, and
// the delivery log shows the notification delivered (the webhook received it, signed).

const pages = browserPages()
const SECRET = 'ui-operational-webhook-secret'
const received: { body: string; headers: IncomingHttpHeaders }[] = []
let hook: Server
let hookUrl = ''

beforeAll(async () => {
  const port = await freePort()
  hook = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    request.on('end', () => {
      received.push({ body, headers: request.headers })
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => hook.listen(port, '127.0.0.1', resolve))
  hookUrl = `http://127.0.0.1:${port}/operational`
})

afterAll(async () => {
  await new Promise<void>((resolve) => hook.close(() => resolve()))
})

describe('the notifications settings page', () => {
  it('saves the recipients and shows a delivery in the log', async () => {
    const page = await pages.open('admin', '/settings/notifications')
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor()
    await settled(page)
    const form = page.getByRole('form', { name: 'Recipients' })
    await form.getByLabel('Email addresses').fill('oncall@ui.example.com')
    await form.getByLabel('Webhook URL').fill(hookUrl)
    await form.getByRole('button', { name: 'Save' }).click()
    // A webhook without a secret is refused, next to the field.
    await expect
      .poll(() => form.locator('.field-error').first().textContent())
      .toMatch(/required with a webhook URL/)
    await form.getByLabel('Webhook secret').fill(SECRET)
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByRole('status').getByText('Saved.').waitFor()
    await expect.poll(() => form.getByText('A secret is stored; leave empty to keep it.').count()).toBe(1)
    await inspect(page, 'settings-notifications')

    // A node whose agent never answers: unhealthy after three checks in a row.
    const admin = await clientAs()
    const node = await admin.nodes.create({
      name: `ui-ops-${randomUUID().slice(0, 8)}`,
      agentUrl: `http://127.0.0.1:${await freePort()}`,
      agentSecret: FAKE_AGENT_SECRET,
    })
    let checkedAt: string | null = null
    for (let check = 0; check < 3; check++) {
      await runMinuteCron()
      const previous: string | null = checkedAt
      await expect
        .poll(
          async () => {
            checkedAt = (await admin.nodes.get({ id: node.id })).health.checkedAt
            return checkedAt !== null && checkedAt !== previous
          },
          { timeout: 20_000 },
        )
        .toBe(true)
    }
    const row = page.getByRole('row').filter({ hasText: `Node ${node.name} is unreachable` })
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh log' }).click()
          await settled(page)
          return row.filter({ hasText: 'webhook' }).filter({ hasText: 'delivered' }).count()
        },
        { timeout: 30_000 },
      )
      .toBe(1)
    await row.filter({ hasText: 'email' }).first().waitFor()
    const delivered = received.find((hit) => hit.body.includes(node.id))
    if (!delivered) throw new Error('the webhook received nothing about the node')
    const headers = Object.fromEntries(
      Object.entries(delivered.headers).map(([name, value]) => [name, String(value)]),
    )
    expect(await verifyServiceSignature(delivered.body, headers, SECRET)).toEqual({ ok: true })
    await inspect(page, 'settings-notifications-log')
  })
})

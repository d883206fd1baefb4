import { beforeAll, describe, expect, it } from 'vitest'
import { type Caller, call, ok } from './helpers/http'
import { adminSession, operatorSession } from './helpers/principals'
import { createStatusPage } from './status-pages/fixture'

// Operators add, list and remove a status page's webhook subscribers (deliveries: status-pages-announce.test.ts).

const SECRET = 'status-webhook-secret-0123456789'
let admin: Caller

interface Webhook {
  id: string
  statusPageId: string
  url: string
  hasSecret: boolean
  createdAt: string
}

beforeAll(async () => {
  admin = await adminSession()
})

const list = (statusPageId: string, caller: Caller = admin) =>
  ok<{ webhooks: Webhook[]; nextCursor: string | null }>(
    'statusPages.webhooks.list',
    { statusPageId },
    caller,
  )

describe('statusPages.webhooks', () => {
  it('should add a webhook whose secret is never returned, list it per page and remove it, each change audited', async () => {
    const page = await createStatusPage(admin)
    const other = await createStatusPage(admin)
    const url = 'https://hooks.example.com/incidents?key=abc'
    const added = await ok<Webhook>(
      'statusPages.webhooks.add',
      { statusPageId: page.id, url, secret: SECRET },
      admin,
    )
    expect(added).toEqual({
      id: expect.any(String),
      statusPageId: page.id,
      url,
      hasSecret: true,
      createdAt: expect.any(String),
    })
    expect(JSON.stringify(await list(page.id))).not.toContain(SECRET)
    expect((await list(page.id)).webhooks).toEqual([added])
    expect((await list(other.id)).webhooks).toEqual([])
    // An operator reads it without what the URL's query may hold.
    const operator = await operatorSession(admin)
    expect((await list(page.id, operator)).webhooks[0]?.url).toBe('https://hooks.example.com/incidents?***')
    expect((await call('statusPages.webhooks.remove', { id: added.id }, operator)).status).toBe(403)

    expect(await ok('statusPages.webhooks.remove', { id: added.id }, admin)).toEqual({ removed: true })
    expect((await list(page.id)).webhooks).toEqual([])
    expect((await call('statusPages.webhooks.remove', { id: added.id }, admin)).body).toMatchObject({
      code: 'not_found',
    })
    const audit = await ok<{
      entries: { action: string; targetId: string; detail: Record<string, unknown> }[]
    }>('audit.list', { targetId: added.id }, admin)
    expect(audit.entries.map((entry) => entry.action).sort()).toEqual([
      'status-page.webhook-add',
      'status-page.webhook-remove',
    ])
    expect(JSON.stringify(audit.entries)).not.toContain(SECRET)
  })

  it('should refuse a bad URL, a short secret or an unknown page by the field, and add nothing', async () => {
    const page = await createStatusPage(admin)
    const cases: [Record<string, unknown>, number, string][] = [
      [{ statusPageId: page.id, url: 'ftp://hooks.example.com', secret: SECRET }, 400, 'url'],
      [{ statusPageId: page.id, url: 'https://127.0.0.1/hook', secret: SECRET }, 400, 'url'],
      [{ statusPageId: page.id, url: 'https://hooks.example.com', secret: 'short' }, 400, 'secret'],
      [{ statusPageId: 'no-such-page', url: 'https://hooks.example.com', secret: SECRET }, 404, ''],
    ]
    for (const [input, status, field] of cases) {
      const answer = await call<{ issues?: { path: string }[] }>('statusPages.webhooks.add', input, admin)
      expect(answer.status, JSON.stringify(input)).toBe(status)
      if (field) expect(answer.body.issues?.map((issue) => issue.path)).toEqual([field])
    }
    expect((await list(page.id)).webhooks).toEqual([])
  })
})

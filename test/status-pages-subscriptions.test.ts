import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../src/jobs/messages'
import { captureJobs, workerEnv } from './helpers/changelog'
import { type Caller, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'
import { createStatusPage, type StatusPage } from './status-pages/fixture'
import {
  confirmedAddress,
  linkIn,
  mailbox,
  runQueued,
  type SentMail,
  subscribe,
} from './status-pages/subscribers'

// Email subscriptions to a public status page, through the real routes and the real job handlers; mail is what
// the ALERT_EMAIL binding was asked to send.

let admin: Caller
let sent: JobMessage[]
let mails: SentMail[]

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  sent = captureJobs().sent
  mails = mailbox().mails
})

const count = (page: StatusPage) =>
  ok<{ confirmed: number; pending: number }>(
    'statusPages.subscriptions.count',
    { statusPageId: page.id },
    admin,
  )

describe('POST /api/v1/status/<slug>/subscribe', () => {
  it('should answer 202 alike for a new, a pending and a confirmed address, and mail a link only a POST confirms', async () => {
    const page = await createStatusPage(admin, { public: true, title: 'Acme status' })
    const first = await subscribe(page.slug, { email: 'Reader@Example.com' })
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ accepted: true })
    await runQueued(sent, 'status-page.subscription-mail')
    expect(mails).toHaveLength(1)
    const [mail] = mails
    expect(mail).toMatchObject({
      from: 'alerts@panel.test',
      to: 'reader@example.com',
      subject: 'Confirm your subscription to Acme status',
    })
    const unsubscribe = linkIn(mail, `/status/${page.slug}/unsubscribe`)
    expect(mail?.headers).toEqual({
      'List-Unsubscribe': `<https://panel.test${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    const confirm = linkIn(mail, `/status/${page.slug}/confirm`)
    expect(confirm).toMatch(/\?token=[\w-]{43}$/)

    // A link scanner's GET confirms nothing: the page only offers the button.
    const opened = await send(confirm)
    expect(opened.status).toBe(200)
    expect(opened.text).toContain(`<form method="post" action="${confirm.replaceAll('&', '&amp;')}">`)
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await count(page)).toEqual({ confirmed: 0, pending: 1 })

    const pressed = await send(confirm, { method: 'POST' })
    expect(pressed.status).toBe(200)
    expect(pressed.text).toContain('Subscribed')
    expect(await count(page)).toEqual({ confirmed: 1, pending: 0 })
    expect((await send(confirm, { method: 'POST' })).status).toBe(404)

    // Asked again for a confirmed address: the same answer, a note instead of a link, nothing changed.
    const again = await subscribe(page.slug, { email: 'reader@example.com' })
    const stranger = await subscribe(page.slug, { email: 'stranger@example.com' })
    for (const answer of [again, stranger]) {
      expect(answer.status).toBe(202)
      expect(answer.text).toBe(first.text)
    }
    await runQueued(sent, 'status-page.subscription-mail')
    expect(mails.map((m) => [m.to, m.subject])).toEqual([
      ['reader@example.com', 'Confirm your subscription to Acme status'],
      ['reader@example.com', 'You are subscribed to Acme status'],
      ['stranger@example.com', 'Confirm your subscription to Acme status'],
    ])
    expect(mails[1]?.text).not.toContain('/confirm')
    expect(linkIn(mails[1], `/status/${page.slug}/unsubscribe`)).toBe(unsubscribe)
    expect(await count(page)).toEqual({ confirmed: 1, pending: 1 })
  })

  it('should mail a pending address a fresh link on a second request, and the first link stops working', async () => {
    const page = await createStatusPage(admin, { public: true })
    await subscribe(page.slug, { email: 'twice@example.com' })
    await subscribe(page.slug, { email: 'twice@example.com' })
    await runQueued(sent, 'status-page.subscription-mail')
    // Both jobs read the row as it is now: the newest link, twice.
    const links = mails.map((mail) => linkIn(mail, `/status/${page.slug}/confirm`))
    expect(links[0]).toBe(links[1])
    expect((await send(links[0] ?? '', { method: 'POST' })).status).toBe(200)
  })

  it('should refuse a malformed address with validation_failed naming email, and store and mail nothing', async () => {
    const page = await createStatusPage(admin, { public: true })
    for (const body of [{ email: 'not-an-address' }, { email: '' }, {}, { email: 'a@b.example', extra: 1 }]) {
      const answer = await subscribe(page.slug, body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.headers.get('content-type')).toBe('application/problem+json')
      expect(answer.body).toMatchObject({ code: 'validation_failed' })
    }
    expect((await subscribe(page.slug, { email: 'x' })).body).toMatchObject({
      issues: [{ path: 'email', message: 'must be an email address' }],
    })
    const notJson = await send(`/api/v1/status/${page.slug}/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    })
    expect(notJson.body).toMatchObject({ status: 400, code: 'invalid_json' })
    expect(sent).toEqual([])
    expect(await count(page)).toEqual({ confirmed: 0, pending: 0 })
  })

  it('should answer 404 for a private or missing page, as its other faces do', async () => {
    const hidden = await createStatusPage(admin, { public: false })
    for (const slug of [hidden.slug, 'no-such-page']) {
      const answer = await subscribe(slug, { email: 'someone@example.com' })
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ code: 'not_found' })
    }
    expect(sent).toEqual([])
  })

  it('should mail one address at most 3 times a day over all pages, answering 202 all the same', async () => {
    const pages = [
      await createStatusPage(admin, { public: true }),
      await createStatusPage(admin, { public: true }),
    ]
    for (const slug of [pages[0]?.slug, pages[1]?.slug, pages[0]?.slug, pages[1]?.slug, pages[0]?.slug]) {
      const answer = await subscribe(slug ?? '', { email: 'flooded@example.com' })
      expect(answer.status).toBe(202)
    }
    await runQueued(sent, 'status-page.subscription-mail')
    expect(mails.map((mail) => mail.to)).toEqual([
      'flooded@example.com',
      'flooded@example.com',
      'flooded@example.com',
    ])
  })

  it('should allow one client 20 requests an hour over all pages, then answer 429 with Retry-After', async () => {
    const previous = workerEnv.TRUSTED_CLIENT_IP_HEADER
    workerEnv.TRUSTED_CLIENT_IP_HEADER = 'x-real-ip'
    try {
      const page = await createStatusPage(admin, { public: true })
      const from = (ip: string, n: number) =>
        subscribe(page.slug, { email: `client-${ip}-${n}@example.com` }, { 'x-real-ip': ip })
      for (let n = 0; n < 20; n++) expect((await from('203.0.113.7', n)).status).toBe(202)
      const refused = await from('203.0.113.7', 20)
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ code: 'rate_limited' })
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000)
      expect((await from('203.0.113.8', 0)).status).toBe(202)
      expect(sent).toHaveLength(21)
    } finally {
      workerEnv.TRUSTED_CLIENT_IP_HEADER = previous
    }
  })
})

describe('unsubscribing', () => {
  it('should show a button on GET, forget the address on its POST or a one-click POST, and answer a repeat alike', async () => {
    const page = await createStatusPage(admin, { public: true })
    const { unsubscribe } = await confirmedAddress(page.slug, 'leaving@example.com', sent, mails)
    const other = await confirmedAddress(page.slug, 'staying@example.com', sent, mails)
    expect(await count(page)).toEqual({ confirmed: 2, pending: 0 })

    const opened = await send(unsubscribe)
    expect(opened.status).toBe(200)
    expect(opened.text).toContain('<button type="submit">Unsubscribe</button>')
    expect(await count(page)).toEqual({ confirmed: 2, pending: 0 })

    // RFC 8058: the mail program POSTs `List-Unsubscribe=One-Click` to the List-Unsubscribe URL.
    const oneClick = await send(unsubscribe, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    })
    expect(oneClick.status).toBe(200)
    expect(oneClick.text).toContain('Unsubscribed')
    expect(await count(page)).toEqual({ confirmed: 1, pending: 0 })
    const repeated = await send(unsubscribe, { method: 'POST' })
    expect(repeated.status).toBe(200)
    expect(repeated.text).toBe(oneClick.text)
    expect((await send(`/status/${page.slug}/unsubscribe?token=made-up`, { method: 'POST' })).text).toBe(
      oneClick.text,
    )
    // Another page's link names nothing here.
    const elsewhere = await createStatusPage(admin, { public: true })
    await send(other.unsubscribe.replace(page.slug, elsewhere.slug), { method: 'POST' })
    expect(await count(page)).toEqual({ confirmed: 1, pending: 0 })
    await send(other.unsubscribe, { method: 'POST' })
    expect(await count(page)).toEqual({ confirmed: 0, pending: 0 })
  })

  it('should never show an address on the page, its JSON or its feeds', async () => {
    const page = await createStatusPage(admin, { public: true })
    await confirmedAddress(page.slug, 'private-reader@example.com', sent, mails)
    for (const path of [
      `/status/${page.slug}`,
      `/api/v1/status/${page.slug}`,
      `/status/${page.slug}/feed.atom`,
      `/status/${page.slug}/feed.rss`,
    ]) {
      const answer = await send(path)
      expect(answer.status).toBe(200)
      expect(answer.text).not.toContain('private-reader')
    }
  })
})

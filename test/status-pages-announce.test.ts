import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JobMessage } from '../src/jobs/messages'
import { verifyServiceSignature } from '../src/lib/service-signature'
import { announceIncidentUpdate } from '../src/status-pages/subscribers/announce'
import { captureJobs, runJobs, workerEnv } from './helpers/changelog'
import { type Caller, ok, send } from './helpers/http'
import { runJob } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'
import { createStatusPage } from './status-pages/fixture'
import { insertIncident, insertUpdate } from './status-pages/incident-rows'
import { confirmedAddress, mailbox, runQueued, type SentMail, subscribe } from './status-pages/subscribers'

// announceIncidentUpdate, as the incident procedures call it after their write commits: incidents are inserted
// as rows here (test/status-pages/incident-rows.ts); subscribers come through the real routes and procedures.

const HOOKS = 'https://hooks.follower.example.com'
const SECRET = 'status-webhook-secret-0123456789'

let admin: Caller
let sent: JobMessage[]
let mails: SentMail[]
let received: { body: string; headers: Headers }[]
let answers: number[]

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  sent = captureJobs().sent
  mails = mailbox().mails
  received = []
  answers = []
  fakeOrigin(HOOKS, async (request) => {
    received.push({ body: await request.text(), headers: request.headers })
    return new Response(null, { status: answers.shift() ?? 204 })
  })
})

/** A public page with two confirmed addresses, one pending, and a webhook. */
async function followedPage(fields: Record<string, unknown> = {}) {
  const page = await createStatusPage(admin, { public: true, title: 'Acme status', ...fields })
  const tag = page.slug
  const alice = await confirmedAddress(page.slug, `alice-${tag}@example.com`, sent, mails)
  await confirmedAddress(page.slug, `bob-${tag}@example.com`, sent, mails)
  await subscribe(page.slug, { email: `pending-${tag}@example.com` })
  await runQueued(sent, 'status-page.subscription-mail')
  mails.length = 0
  await ok(
    'statusPages.webhooks.add',
    { statusPageId: page.id, url: `${HOOKS}/${tag}`, secret: SECRET },
    admin,
  )
  return { page, alice }
}

/** Runs every queued delivery, then the retries they ask for, until none is left. */
async function deliverAll(): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const due: JobMessage[] = sent.filter((job) => job.type === 'status-page.deliver')
    if (due.length === 0) return
    sent.splice(0, sent.length, ...sent.filter((job) => !due.includes(job)))
    for (const job of due) if ((await runJob(job)).retryDelay !== null) sent.push(job)
  }
}

describe('announceIncidentUpdate', () => {
  it('should mail each confirmed address once and POST the signed update to each webhook, even when the jobs are redelivered', async () => {
    const { page } = await followedPage()
    const incident = await insertIncident(page.id, {
      title: 'Slow API',
      updates: [{ state: 'investigating', message: 'We see 5xx answers.', at: new Date() }],
    })
    const update = incident.updates[0]
    if (!update) throw new Error('no update')
    await announceIncidentUpdate(workerEnv, incident.id, update.id)
    const announce = sent.filter((job) => job.type === 'status-page.announce')
    expect(announce).toEqual([{ type: 'status-page.announce', incidentId: incident.id, updateId: update.id }])
    // The queue delivers at least once: the announce twice, so every delivery job twice.
    await runJob(announce[0] as JobMessage)
    await runJob(announce[0] as JobMessage)
    expect(sent.filter((job) => job.type === 'status-page.deliver')).toHaveLength(6)
    await deliverAll()
    expect(mails.map((mail) => mail.to).sort()).toEqual([
      `alice-${page.slug}@example.com`,
      `bob-${page.slug}@example.com`,
    ])
    const [mail] = mails
    expect(mail?.subject).toBe('[Acme status] Slow API: Investigating')
    expect(mail?.text).toContain('We see 5xx answers.')
    expect(mail?.headers['List-Unsubscribe']).toMatch(
      new RegExp(`^<https://panel\\.test/status/${page.slug}/unsubscribe\\?token=[\\w-]{43}>$`),
    )
    expect(mail?.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
    expect(mail?.text).toContain(`Unsubscribe: https://panel.test/status/${page.slug}/unsubscribe?token=`)

    expect(received).toHaveLength(1)
    const [hook] = received
    expect(await verifyServiceSignature(hook?.body ?? '', hook?.headers, SECRET)).toEqual({ ok: true })
    expect(JSON.parse(hook?.body ?? '')).toMatchObject({
      event: 'incident.created',
      statusPage: {
        id: page.id,
        slug: page.slug,
        title: 'Acme status',
        url: `https://panel.test/status/${page.slug}`,
      },
      incident: { id: incident.id, title: 'Slow API', state: 'investigating' },
      update: { id: update.id, state: 'investigating', message: 'We see 5xx answers.' },
    })

    // Announced again later (a retried procedure): nothing more goes out.
    await announceIncidentUpdate(workerEnv, incident.id, update.id)
    await runQueued(sent, 'status-page.announce')
    await deliverAll()
    expect(mails).toHaveLength(2)
    expect(received).toHaveLength(1)
  })

  it('should announce each later update as incident.updated, and retry a webhook that answers 503', async () => {
    const { page } = await followedPage()
    const incident = await insertIncident(page.id, {
      title: 'Login delays',
      updates: [{ state: 'investigating', message: 'Looking.', at: new Date(Date.now() - 60_000) }],
    })
    const update = await insertUpdate(incident.id, { state: 'resolved', message: 'Fixed.', at: new Date() })
    answers.push(503)
    await announceIncidentUpdate(workerEnv, incident.id, update.id)
    await runQueued(sent, 'status-page.announce')
    await deliverAll()
    expect(received).toHaveLength(2)
    expect(received.map((hook) => JSON.parse(hook.body).event)).toEqual([
      'incident.updated',
      'incident.updated',
    ])
    expect(JSON.parse(received[1]?.body ?? '').incident.updates).toHaveLength(2)
    expect(mails.map((mail) => mail.subject)).toEqual([
      '[Acme status] Login delays: Resolved',
      '[Acme status] Login delays: Resolved',
    ])
  })

  it('should send nothing to an address unsubscribed, or a webhook removed, after the fan-out', async () => {
    const { page, alice } = await followedPage()
    const incident = await insertIncident(page.id, {
      title: 'Packet loss',
      updates: [{ state: 'identified', message: 'Upstream.', at: new Date() }],
    })
    await announceIncidentUpdate(workerEnv, incident.id, incident.updates[0]?.id ?? '')
    await runQueued(sent, 'status-page.announce')
    await ok(
      'statusPages.webhooks.remove',
      {
        id: (
          await ok<{ webhooks: { id: string }[] }>(
            'statusPages.webhooks.list',
            { statusPageId: page.id },
            admin,
          )
        ).webhooks[0]?.id,
      },
      admin,
    )
    await send(alice.unsubscribe, { method: 'POST' })
    await deliverAll()
    expect(mails.map((mail) => mail.to)).toEqual([`bob-${page.slug}@example.com`])
    expect(received).toEqual([])
  })

  it('should mail nobody for a page made private, while its webhooks still hear of it', async () => {
    const { page } = await followedPage()
    await ok('statusPages.update', { id: page.id, public: false }, admin)
    const incident = await insertIncident(page.id, {
      title: 'Internal only',
      updates: [{ state: 'investigating', message: 'Quiet.', at: new Date() }],
    })
    await announceIncidentUpdate(workerEnv, incident.id, incident.updates[0]?.id ?? '')
    await runQueued(sent, 'status-page.announce')
    await deliverAll()
    expect(mails).toEqual([])
    expect(received).toHaveLength(1)
  })

  it('should leave a row another attempt holds: the copy sends nothing and comes back once the hold ends', async () => {
    const { page } = await followedPage()
    const incident = await insertIncident(page.id, {
      title: 'Held',
      updates: [{ state: 'investigating', message: 'Busy.', at: new Date() }],
    })
    await announceIncidentUpdate(workerEnv, incident.id, incident.updates[0]?.id ?? '')
    await runQueued(sent, 'status-page.announce')
    const jobs = sent.filter((job) => job.type === 'status-page.deliver')
    // Another copy of the job is sending right now (it claimed every row 30 s ago, for 60 s).
    await workerEnv.DB.prepare('update status_page_announcements set claimed_until = ? where incident_id = ?')
      .bind(Date.now() + 30_000, incident.id)
      .run()
    const held = await runJobs(jobs.map((body) => ({ body })))
    expect(held.retryMessages).toHaveLength(3)
    for (const delay of Object.values(held.retryDelays)) {
      expect(delay).toBeGreaterThanOrEqual(30)
      expect(delay).toBeLessThanOrEqual(31)
    }
    expect(mails).toEqual([])
    expect(received).toEqual([])
    // The holder died: once the hold ends, the copies deliver.
    await workerEnv.DB.prepare('update status_page_announcements set claimed_until = ? where incident_id = ?')
      .bind(Date.now() - 1, incident.id)
      .run()
    for (const job of jobs) await runJob(job)
    expect(mails).toHaveLength(2)
    expect(received).toHaveLength(1)
  })

  it('should announce what statusPages.incidents.create and update write, through the routes', async () => {
    const { page } = await followedPage()
    const incident = await ok<{ id: string; updates: { id: string }[] }>(
      'statusPages.incidents.create',
      { statusPageId: page.id, title: 'Login fails', impact: 'minor', message: 'Sign-in answers 500.' },
      admin,
    )
    const updated = await ok<{ updates: { id: string }[] }>(
      'statusPages.incidents.update',
      { id: incident.id, state: 'resolved', message: 'Fixed.' },
      admin,
    )
    expect(sent.filter((job) => job.type === 'status-page.announce')).toEqual([
      { type: 'status-page.announce', incidentId: incident.id, updateId: incident.updates[0]?.id },
      { type: 'status-page.announce', incidentId: incident.id, updateId: updated.updates[0]?.id },
    ])
    await runQueued(sent, 'status-page.announce')
    await deliverAll()
    expect(
      mails.map((mail) => mail.subject).filter((subject) => subject.includes('Login fails')),
    ).toHaveLength(4)
    expect(received.map((hook) => JSON.parse(hook.body).event)).toEqual([
      'incident.created',
      'incident.updated',
    ])
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import { verifyServiceSignature } from '../src/lib/service-signature'
import { NOTIFY_ATTEMPTS } from '../src/notifications/channels'
import { clearOperationalEvent, raiseOperationalEvent } from '../src/notifications/operational'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { runCron, workerEnv } from './helpers/changelog'
import { type Caller, call, ok } from './helpers/http'
import { runJob } from './helpers/jobs'
import {
  deliverOps,
  OPS_EMAIL,
  OPS_HOOKS,
  OPS_SECRET,
  OPS_WEBHOOK,
  type OpsInbox,
  opsInbox,
  opsSilent,
} from './helpers/notifications'
import { adminSession, operatorSession } from './helpers/principals'

// The installation-wide operational notification setting, the policy every trigger goes through (one message
// per episode, cooldown, hourly cap, all-clear) and the logged, retried deliveries.

interface Settings {
  emails: string[]
  channels: string[]
  webhook: { url: string; hasSecret: true } | null
  cooldownMinutes: number
  maxPerHour: number
  updatedAt: string | null
}

interface Delivery {
  id: string
  kind: string
  event: string
  key: string
  subject: string
  channel: string
  target: string
  status: string
  attempts: number
  answer: string | null
  createdAt: string
  lastAttemptAt: string | null
}

const MINUTE = 60_000
let admin: Caller
let sent: SentJob[]

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
})

const key = (label: string) => `test:${label}-${crypto.randomUUID().slice(0, 8)}`
const event = (k: string, subject = `Something ${k} failed`) => ({
  kind: 'domain.failed' as const,
  key: k,
  subject,
  detail: 'what happened and what to do',
  link: '/fleet',
})
/** The queued delivery of `k`'s notification to the webhook. */
async function webhookDelivery(k: string) {
  const row = await workerEnv.DB.prepare(
    "SELECT id FROM operational_deliveries WHERE event_key = ? AND channel = 'webhook'",
  )
    .bind(k)
    .first<{ id: string }>()
  if (!row) throw new Error(`no webhook delivery of ${k}`)
  return { type: 'notification.deliver' as const, deliveryId: row.id }
}

const log = async (input: Record<string, unknown> = {}) =>
  ok<{ deliveries: Delivery[]; nextCursor: string | null }>('settings.notifications.deliveries', input, admin)

describe('settings.notifications', () => {
  it('should store recipients and a webhook whose secret is sealed and never returned', async () => {
    const saved = await call<Settings>(
      'settings.notifications.set',
      {
        emails: ['Oncall@Ops.example.com', OPS_EMAIL],
        webhook: { url: OPS_WEBHOOK, secret: OPS_SECRET },
        cooldownMinutes: 5,
      },
      admin,
    )
    expect(saved.status, saved.text).toBe(200)
    expect(saved.text).not.toContain(OPS_SECRET)
    const expected = {
      emails: [OPS_EMAIL],
      channels: [],
      webhook: { url: OPS_WEBHOOK, hasSecret: true },
      cooldownMinutes: 5,
      maxPerHour: 20,
      updatedAt: expect.any(String),
    }
    expect(saved.body).toEqual(expected)
    const operator = await operatorSession(admin)
    const read = await call<Settings>('settings.notifications.get', {}, operator)
    expect(read.body).toEqual(expected)
    expect(read.text).not.toContain(OPS_SECRET)
    const [sealed] = await workerEnv.DB.prepare(
      'SELECT webhook_secret_sealed AS s FROM notification_settings',
    )
      .all<{
        s: string
      }>()
      .then((r) => r.results)
    expect(sealed?.s).toBeTruthy()
    expect(sealed?.s).not.toContain(OPS_SECRET)
    // The same URL keeps its secret; the audit entry names the change without the secret.
    const kept = await ok<Settings>(
      'settings.notifications.set',
      { emails: [], webhook: { url: OPS_WEBHOOK } },
      admin,
    )
    expect(kept).toMatchObject({
      emails: [],
      webhook: { url: OPS_WEBHOOK, hasSecret: true },
      cooldownMinutes: 5,
    })
    const audit = await ok<{ entries: { action: string; detail: Record<string, unknown> }[] }>(
      'audit.list',
      { action: 'settings.notifications-set', limit: 2 },
      admin,
    )
    expect(audit.entries[0]?.detail).toMatchObject({ webhookUrl: OPS_WEBHOOK, secretChanged: false })
    expect(JSON.stringify(audit.entries)).not.toContain(OPS_SECRET)
  })

  it('should let operators read but not change it', async () => {
    const operator = await operatorSession(admin)
    const denied = await call('settings.notifications.set', { emails: [], webhook: null }, operator)
    expect(denied.status).toBe(403)
    expect((await call('settings.notifications.deliveries', {}, operator)).status).toBe(200)
  })

  it('should show the webhook URL in full to settings:edit only: its query is masked for an operator', async () => {
    const url = `${OPS_HOOKS}/panel?token=hook-credential`
    await ok('settings.notifications.set', { emails: [], webhook: { url, secret: OPS_SECRET } }, admin)
    const operator = await operatorSession(admin)
    const seen = await ok<Settings>('settings.notifications.get', {}, operator)
    expect(seen.webhook?.url).toBe(`${OPS_HOOKS}/panel?***`)
    expect((await ok<Settings>('settings.notifications.get', {}, admin)).webhook?.url).toBe(url)
  })

  it.each([
    ['a bad email address', { emails: ['not-an-address'], webhook: null }, 'emails.0'],
    [
      'a webhook without a secret',
      { emails: [], webhook: { url: 'https://hooks.other.example.com/x' } },
      'webhook.secret',
    ],
    [
      'a plain http webhook in production',
      { emails: [], webhook: { url: 'http://hooks.ops.example.com/x', secret: OPS_SECRET } },
      'webhook.url',
    ],
    [
      'a webhook on a private address',
      { emails: [], webhook: { url: 'https://10.0.0.5/hook', secret: OPS_SECRET } },
      'webhook.url',
    ],
    ['a short secret', { emails: [], webhook: { url: OPS_WEBHOOK, secret: 'short' } }, 'webhook.secret'],
  ])('should refuse %s with 400 naming the field, changing nothing', async (_label, input, field) => {
    await opsInbox(admin)
    const refused = await call<{ code: string; issues: { path: string }[] }>(
      'settings.notifications.set',
      input,
      admin,
    )
    expect(refused.status, refused.text).toBe(400)
    expect(refused.body).toMatchObject({ code: 'validation_failed', issues: [{ path: field }] })
    expect(await ok<Settings>('settings.notifications.get', {}, admin)).toMatchObject({
      emails: [OPS_EMAIL],
      webhook: { url: OPS_WEBHOOK },
    })
  })
})

describe('operational events', () => {
  let inbox: OpsInbox
  beforeEach(async () => {
    inbox = await opsInbox(admin, { cooldownMinutes: 30, maxPerHour: 20 })
  })

  it('should announce a raise once on both channels, signed, and the all-clear when it clears', async () => {
    const k = key('once')
    const at = new Date()
    await raiseOperationalEvent(workerEnv, event(k), at)
    await raiseOperationalEvent(workerEnv, event(k), new Date(at.getTime() + MINUTE))
    const [raised, ...more] = await deliverOps(sent, inbox)
    expect(more).toEqual([])
    expect(raised).toEqual({
      event: 'operational.raised',
      kind: 'domain.failed',
      key: k,
      subject: `Something ${k} failed`,
      detail: 'what happened and what to do',
      link: 'https://panel.test/fleet',
      at: at.toISOString(),
      openedAt: at.toISOString(),
    })
    const [hit] = inbox.hooks
    if (!hit) throw new Error('no webhook')
    expect(await verifyServiceSignature(hit.body, hit.headers, OPS_SECRET)).toEqual({ ok: true })
    expect(inbox.email).toHaveBeenCalledTimes(1)
    expect(inbox.email.mock.calls[0]?.[0]).toMatchObject({
      from: 'alerts@panel.test',
      to: OPS_EMAIL,
      subject: `[PROBLEM] Something ${k} failed`,
      text: expect.stringContaining('what happened and what to do'),
    })
    const cleared = new Date(at.getTime() + 2 * MINUTE)
    await clearOperationalEvent(workerEnv, k, cleared)
    await clearOperationalEvent(workerEnv, k, cleared)
    expect(await deliverOps(sent, inbox)).toEqual([
      expect.objectContaining({ event: 'operational.resolved', key: k, at: cleared.toISOString() }),
    ])
    expect(inbox.email.mock.calls[1]?.[0]).toMatchObject({ subject: `[RESOLVED] Something ${k} failed` })
  })

  it('should hold a repeat within the cooldown and announce it at the first minute after', async () => {
    const k = key('cooldown')
    const at = Date.now()
    await raiseOperationalEvent(workerEnv, event(k), new Date(at))
    await clearOperationalEvent(workerEnv, k, new Date(at + MINUTE))
    expect(await deliverOps(sent, inbox)).toHaveLength(2)
    // Failing again 5 minutes after the all-clear: held, not lost.
    await raiseOperationalEvent(workerEnv, event(k), new Date(at + 5 * MINUTE))
    expect(await deliverOps(sent, inbox)).toEqual([])
    await runCron('* * * * *', at + 30 * MINUTE)
    expect(await deliverOps(sent, inbox)).toEqual([])
    await runCron('* * * * *', at + 31 * MINUTE)
    expect(await deliverOps(sent, inbox)).toEqual([
      expect.objectContaining({
        event: 'operational.raised',
        key: k,
        at: new Date(at + 31 * MINUTE).toISOString(),
      }),
    ])
  })

  it('should announce an open event again when what is wrong changes, past the cooldown', async () => {
    const k = key('changed')
    const at = Date.now()
    await raiseOperationalEvent(workerEnv, event(k, 'Node x is unreachable'), new Date(at))
    await raiseOperationalEvent(
      workerEnv,
      event(k, 'Node x refuses its configuration'),
      new Date(at + 31 * MINUTE),
    )
    expect((await deliverOps(sent, inbox)).map((n) => n.subject)).toEqual([
      'Node x is unreachable',
      'Node x refuses its configuration',
    ])
  })

  it('should close a held event silently: nobody heard of it', async () => {
    await opsSilent(admin)
    const k = key('silent')
    await raiseOperationalEvent(workerEnv, event(k))
    await clearOperationalEvent(workerEnv, k)
    await runCron('* * * * *', Date.now() + MINUTE)
    expect(sent.filter((job) => job.body.type === 'notification.deliver')).toEqual([])
  })

  it('should cap the notifications of an hour, letting the all-clear through', async () => {
    inbox = await opsInbox(admin, { maxPerHour: 2 })
    const at = Date.now() + 120 * MINUTE
    const keys = [key('cap-a'), key('cap-b'), key('cap-c')]
    for (const k of keys) await raiseOperationalEvent(workerEnv, event(k), new Date(at))
    expect((await deliverOps(sent, inbox)).map((n) => n.key)).toEqual(keys.slice(0, 2))
    await clearOperationalEvent(workerEnv, keys[0] as string, new Date(at + MINUTE))
    expect((await deliverOps(sent, inbox)).map((n) => n.event)).toEqual(['operational.resolved'])
    // An hour on, the held one goes out.
    await runCron('* * * * *', at + 61 * MINUTE)
    expect((await deliverOps(sent, inbox)).map((n) => n.key)).toEqual([keys[2]])
  })

  it('should retry a failed delivery with backoff, logging each attempt, and give up after the last', async () => {
    inbox.answer.status = 503
    const k = key('retry')
    await raiseOperationalEvent(workerEnv, event(k))
    const hook = await webhookDelivery(k)
    const first = await runJob(hook, 1)
    expect(first).toMatchObject({ acked: false, retryDelay: expect.any(Number) })
    const mine = async () => (await log()).deliveries.filter((d) => d.key === k && d.channel === 'webhook')
    expect(await mine()).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        answer: 'answered 503: server error',
        target: 'https://hooks.ops.example.com/panel',
      }),
    ])
    expect(await runJob(hook, NOTIFY_ATTEMPTS)).toEqual({ acked: true, retryDelay: null })
    expect(await mine()).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: NOTIFY_ATTEMPTS,
        answer: `answered 503: server error; gave up after ${NOTIFY_ATTEMPTS} attempts`,
      }),
    ])
  })

  it('should deliver on a retry after a failed attempt, and not twice', async () => {
    inbox.answer.status = 500
    const k = key('second')
    await raiseOperationalEvent(workerEnv, event(k))
    await deliverOps(sent, inbox)
    inbox.answer.status = 204
    await deliverOps(sent, inbox)
    const hook = (await log()).deliveries.find((d) => d.key === k && d.channel === 'webhook')
    expect(hook).toMatchObject({ status: 'delivered', attempts: 1, answer: 'answered 204: delivered' })
    expect(inbox.hooks).toHaveLength(2)
  })

  it('should send nothing to a recipient removed before delivery, saying so in the log', async () => {
    const k = key('removed')
    await raiseOperationalEvent(workerEnv, event(k))
    await ok('settings.notifications.set', { emails: [], webhook: { url: OPS_WEBHOOK } }, admin)
    await deliverOps(sent, inbox)
    expect(inbox.email).not.toHaveBeenCalled()
    const email = (await log()).deliveries.find((d) => d.key === k && d.channel === 'email')
    expect(email).toMatchObject({
      status: 'failed',
      target: 'o***@ops.example.com',
      answer: 'not sent: the address was removed before delivery',
    })
  })

  it('should page the delivery log newest first by keyset', async () => {
    const k = key('paging')
    const at = Date.now() + 300 * MINUTE
    await raiseOperationalEvent(workerEnv, event(k), new Date(at))
    await clearOperationalEvent(workerEnv, k, new Date(at + MINUTE))
    await deliverOps(sent, inbox)
    const all = (await log({ limit: 500 })).deliveries
    const firstPage = await log({ limit: 3 })
    expect(firstPage.deliveries).toEqual(all.slice(0, 3))
    expect(firstPage.deliveries[0]).toMatchObject({ key: k, event: 'resolved' })
    const rest = await log({ limit: 500, cursor: firstPage.nextCursor })
    expect(rest).toEqual({ deliveries: all.slice(3), nextCursor: null })
    const bad = await call('settings.notifications.deliveries', { cursor: 'not a cursor' }, admin)
    expect(bad.status).toBe(400)
  })
})

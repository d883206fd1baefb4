import { type MockInstance, vi } from 'vitest'
import type { SentJob } from '../dns-servers/run-job'
import { workerEnv } from './changelog'
import { type Caller, ok } from './http'
import { runJob } from './jobs'
import { fakeOrigin } from './outbound'

export const OPS_HOOKS = 'https://hooks.ops.example.com'
export const OPS_WEBHOOK = `${OPS_HOOKS}/panel`
export const OPS_SECRET = 'ops-webhook-secret-0123456789'
export const OPS_EMAIL = 'oncall@ops.example.com'

/** An operational notification as its webhook carries it. */
export interface OpsNotification {
  event: 'operational.raised' | 'operational.resolved'
  kind: string
  key: string
  subject: string
  detail: string
  link: string | null
  at: string
  openedAt: string
}

export interface OpsInbox {
  /** The webhook bodies received, in order, with their headers. */
  hooks: { body: string; headers: Headers }[]
  /** The ALERT_EMAIL binding's send, mocked. */
  email: MockInstance
  /** What the webhook answers next (204 unless set). */
  answer: { status: number }
}

/** Saves a setting that tells nobody (the setting outlives a test: D1 is shared by a file's tests). */
export async function opsSilent(admin: Caller): Promise<void> {
  await ok('settings.notifications.set', { emails: [], webhook: null }, admin)
}

/** Saves the operational setting (one email and the signed webhook) and starts capturing both channels. */
export async function opsInbox(admin: Caller, fields: Record<string, unknown> = {}): Promise<OpsInbox> {
  const inbox: OpsInbox = {
    hooks: [],
    email: vi
      .spyOn(workerEnv.ALERT_EMAIL, 'send')
      .mockClear()
      .mockResolvedValue({ messageId: '<ops@panel.test>' }),
    answer: { status: 204 },
  }
  fakeOrigin(OPS_HOOKS, async (request) => {
    inbox.hooks.push({ body: await request.text(), headers: request.headers })
    return new Response(null, { status: inbox.answer.status })
  })
  await ok(
    'settings.notifications.set',
    { emails: [OPS_EMAIL], webhook: { url: OPS_WEBHOOK, secret: OPS_SECRET }, ...fields },
    admin,
  )
  return inbox
}

/**
 * Runs the queued operational deliveries once each (one asking for a retry stays queued) and answers the
 * notifications the webhook received meanwhile.
 */
export async function deliverOps(sent: SentJob[], inbox: OpsInbox): Promise<OpsNotification[]> {
  const due = sent.filter((job) => job.body.type === 'notification.deliver')
  sent.splice(0, sent.length, ...sent.filter((job) => !due.includes(job)))
  const seen = inbox.hooks.length
  for (const job of due) if ((await runJob(job.body)).retryDelay !== null) sent.push(job)
  return inbox.hooks.slice(seen).map((hook) => JSON.parse(hook.body) as OpsNotification)
}

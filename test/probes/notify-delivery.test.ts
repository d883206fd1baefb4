import { and, eq } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest'
import { db } from '../../src/db/client'
import { probeDeliveries, probes } from '../../src/db/schema/probes'
import { backoffSeconds } from '../../src/lib/backoff'
import { sealSecret } from '../../src/lib/secrets'
import { verifyServiceSignature } from '../../src/lib/service-signature'
import { NOTIFY_ATTEMPTS } from '../../src/notifications/channels'
import type { ProbeNotification, ProbeNotifyMessage } from '../../src/notifications/probes/jobs'
import { HttpConfigSchema, NotifyConfigSchema, type ProbeNotifyConfig } from '../../src/probes/config'
import { runJobs, workerEnv } from '../helpers/changelog'
import { fakeOrigin, interceptOutbound, outboundRequests } from '../helpers/outbound'

const HOOKS = 'https://hooks.example.test'
const SECRET = 'probe-webhook-secret-0123456789'
const ONCALL = 'oncall@example.test'
const database = db(workerEnv.DB)

interface Received {
  headers: Headers
  body: string
}

/** A fake webhook receiver answering each request with the next status (the last one repeats). */
function receiver(origin: string, answers: (number | Response)[] = [200]): Received[] {
  const received: Received[] = []
  fakeOrigin(origin, async (request) => {
    received.push({ headers: request.headers, body: await request.text() })
    const answer = answers[Math.min(received.length - 1, answers.length - 1)] ?? 200
    return typeof answer === 'number' ? new Response(null, { status: answer }) : answer
  })
  return received
}

/** Inserts a probe row directly (the catalogue procedures are written elsewhere) and returns its id. */
async function insertProbe(
  notify: Partial<ProbeNotifyConfig> = {},
  fields: { webhookSecret?: string | null; archivedAt?: Date | null } = {},
): Promise<string> {
  const id = crypto.randomUUID()
  const now = new Date()
  const secret = fields.webhookSecret === undefined ? SECRET : fields.webhookSecret
  await database.insert(probes).values({
    id,
    name: 'shop health',
    type: 'http',
    targetKind: 'external',
    targetId: null,
    target: 'https://shop.example.test/health',
    config: HttpConfigSchema.parse({}),
    notifyConfig: NotifyConfigSchema.parse({ webhookUrl: `${HOOKS}/probe`, emails: [ONCALL], ...notify }),
    webhookSecret: secret === null ? null : await sealSecret(workerEnv, secret),
    heartbeatTokenHash: null,
    state: 'down',
    enabled: true,
    consecutiveFailures: 3,
    archivedAt: fields.archivedAt ?? null,
    createdAt: now,
    updatedAt: now,
  })
  return id
}

function notification(probeId: string, overrides: Partial<ProbeNotification> = {}): ProbeNotification {
  return {
    event: 'probe.state_changed',
    probe: {
      id: probeId,
      name: 'shop health',
      type: 'http',
      targetKind: 'external',
      targetId: null,
      target: 'https://shop.example.test/health',
    },
    previousState: 'up',
    state: 'down',
    at: '2026-11-20T10:00:00.000Z',
    result: { at: '2026-11-20T10:00:00.000Z', outcome: 'down', latencyMs: null, detail: 'HTTP 503' },
    downSince: '2026-11-20T10:00:00.000Z',
    ...overrides,
  }
}

function message(
  probeId: string,
  target: ProbeNotifyMessage['target'] = 'webhook',
  overrides: Partial<ProbeNotification> = {},
): ProbeNotifyMessage {
  return { type: 'probe.notify', probeId, target, notification: notification(probeId, overrides) }
}

async function run(job: ProbeNotifyMessage, attempts = 1) {
  const result = await runJobs([{ body: job, attempts }])
  return { acked: result.explicitAcks.includes('msg-0'), retryDelay: result.retryDelays['msg-0'] ?? null }
}

async function delivery(probeId: string, target: string) {
  const [row] = await database
    .select()
    .from(probeDeliveries)
    .where(and(eq(probeDeliveries.probeId, probeId), eq(probeDeliveries.target, target)))
  return row
}

beforeEach(() => {
  interceptOutbound()
})

describe('probe.notify: webhook', () => {
  it('should POST the documented payload, signed like changelog webhooks, and record it delivered', async () => {
    const received = receiver(HOOKS)
    const id = await insertProbe()
    const job = message(id)
    expect(await run(job)).toEqual({ acked: true, retryDelay: null })
    expect(received).toHaveLength(1)
    const [hit] = received
    if (!hit) throw new Error('no request')
    expect(await verifyServiceSignature(hit.body, hit.headers, SECRET)).toEqual({ ok: true })
    expect(await verifyServiceSignature(hit.body, hit.headers, 'another-secret-entirely')).toMatchObject({
      ok: false,
    })
    expect(hit.headers.get('content-type')).toBe('application/json')
    expect(JSON.parse(hit.body)).toEqual({
      event: 'probe.state_changed',
      probe: job.notification.probe,
      previousState: 'up',
      state: 'down',
      at: '2026-11-20T10:00:00.000Z',
      result: job.notification.result,
      downSince: '2026-11-20T10:00:00.000Z',
    })
    expect(outboundRequests().map((r) => r.url)).toEqual([`${HOOKS}/probe`])
    expect(await delivery(id, 'webhook')).toMatchObject({
      status: 'delivered',
      event: 'up->down',
      attempts: 1,
      lastError: null,
      lastAttemptAt: expect.any(Date),
    })
  })

  it('should retry a 500 with backoff, keep the delivery pending, then record it delivered', async () => {
    const received = receiver(HOOKS, [500, 204])
    const id = await insertProbe()
    const job = message(id)
    expect(await run(job, 1)).toEqual({ acked: false, retryDelay: backoffSeconds(1) })
    expect(await delivery(id, 'webhook')).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'answered 500: server error',
    })
    expect(await run(job, 2)).toEqual({ acked: true, retryDelay: null })
    expect(received).toHaveLength(2)
    expect(await delivery(id, 'webhook')).toMatchObject({ status: 'delivered', attempts: 2, lastError: null })
  })

  it('should retry a network error and a 429, waiting as long as Retry-After asks', async () => {
    const id = await insertProbe()
    const job = message(id)
    expect(await run(job, 1)).toEqual({ acked: false, retryDelay: backoffSeconds(1) })
    expect((await delivery(id, 'webhook'))?.lastError).toMatch(/^unreachable: /)
    receiver(HOOKS, [new Response(null, { status: 429, headers: { 'retry-after': '600' } })])
    expect(await run(job, 2)).toEqual({ acked: false, retryDelay: 600 })
  })

  it('should give up after the bounded number of attempts and record the failure', async () => {
    receiver(HOOKS, [503])
    const id = await insertProbe()
    expect(await run(message(id), NOTIFY_ATTEMPTS)).toEqual({ acked: true, retryDelay: null })
    const row = await delivery(id, 'webhook')
    expect(row).toMatchObject({ status: 'failed', attempts: NOTIFY_ATTEMPTS })
    expect(row?.lastError).toMatch(
      new RegExp(`answered 503: server error; gave up after ${NOTIFY_ATTEMPTS} attempts`),
    )
  })

  it('should record a permanent refusal as failed at once, without retrying', async () => {
    receiver(HOOKS, [404])
    const id = await insertProbe()
    expect(await run(message(id))).toEqual({ acked: true, retryDelay: null })
    expect(await delivery(id, 'webhook')).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'answered 404: not found',
    })
  })

  it('should not quote a receiver error that echoes the secret', async () => {
    const id = await insertProbe()
    fakeOrigin(HOOKS, () => {
      throw new TypeError(`connection reset while sending ${SECRET}`)
    })
    await run(message(id))
    const row = await delivery(id, 'webhook')
    expect(row?.status).toBe('pending')
    expect(JSON.stringify(row)).not.toContain(SECRET.slice(0, 12))
  })

  it('should send nothing for a probe archived before delivery, and say so on its delivery row', async () => {
    receiver(HOOKS, [500])
    const id = await insertProbe()
    const job = message(id)
    await run(job, 1)
    await database.update(probes).set({ archivedAt: new Date() }).where(eq(probes.id, id))
    expect(await run(job, 2)).toEqual({ acked: true, retryDelay: null })
    expect(outboundRequests()).toHaveLength(1)
    expect(await delivery(id, 'webhook')).toMatchObject({ status: 'failed', attempts: 1 })
    expect((await delivery(id, 'webhook'))?.lastError).toMatch(/archived/)
  })

  it('should send nothing for a probe that no longer exists', async () => {
    expect(await run(message(crypto.randomUUID()))).toEqual({ acked: true, retryDelay: null })
    expect(outboundRequests()).toHaveLength(0)
  })

  it('should send to the webhook URL and with the secret the probe has at delivery', async () => {
    const moved = receiver('https://moved.example.test')
    const id = await insertProbe()
    await database
      .update(probes)
      .set({
        notifyConfig: NotifyConfigSchema.parse({ webhookUrl: 'https://moved.example.test/new' }),
        webhookSecret: await sealSecret(workerEnv, 'the-rotated-secret-0123456789'),
      })
      .where(eq(probes.id, id))
    expect(await run(message(id))).toEqual({ acked: true, retryDelay: null })
    const [hit] = moved
    if (!hit) throw new Error('no request')
    expect(await verifyServiceSignature(hit.body, hit.headers, 'the-rotated-secret-0123456789')).toEqual({
      ok: true,
    })
  })

  it('should send nothing once the webhook URL was removed', async () => {
    receiver(HOOKS)
    const id = await insertProbe({ webhookUrl: null })
    expect(await run(message(id))).toEqual({ acked: true, retryDelay: null })
    expect(outboundRequests()).toHaveLength(0)
  })

  it('should refuse to send unsigned: a probe without a webhook secret records a failed delivery', async () => {
    receiver(HOOKS)
    const id = await insertProbe({}, { webhookSecret: null })
    expect(await run(message(id))).toEqual({ acked: true, retryDelay: null })
    expect(outboundRequests()).toHaveLength(0)
    const row = await delivery(id, 'webhook')
    expect(row).toMatchObject({ status: 'failed', attempts: 1 })
    expect(row?.lastError).toMatch(/no webhook secret/)
  })
})

describe('probe.notify: email', () => {
  let sendSpy: MockInstance<SendEmail['send']>

  beforeEach(() => {
    sendSpy = vi.spyOn(workerEnv.ALERT_EMAIL, 'send').mockResolvedValue({ messageId: '<m@panel.test>' })
  })
  afterEach(() => {
    sendSpy.mockRestore()
  })

  it('should mail a down alert through ALERT_EMAIL and record it delivered', async () => {
    const id = await insertProbe()
    expect(await run(message(id, `email:${ONCALL}`))).toEqual({ acked: true, retryDelay: null })
    expect(sendSpy).toHaveBeenCalledTimes(1)
    const [sent] = sendSpy.mock.calls[0] ?? []
    expect(sent).toMatchObject({ from: 'alerts@panel.test', to: ONCALL, subject: '[DOWN] shop health' })
    const text = (sent as { text: string }).text
    expect(text).toContain('https://shop.example.test/health')
    expect(text).toContain('HTTP 503')
    expect(text).toContain('2026-11-20T10:00:00.000Z')
    expect(outboundRequests()).toHaveLength(0)
    expect(await delivery(id, `email:${ONCALL}`)).toMatchObject({
      status: 'delivered',
      event: 'up->down',
      attempts: 1,
    })
  })

  it('should say how long the probe was down when it recovers, and how long so far in a reminder', async () => {
    const id = await insertProbe()
    const recovered = message(id, `email:${ONCALL}`, {
      previousState: 'down',
      state: 'up',
      at: '2026-11-20T10:07:00.000Z',
      result: { at: '2026-11-20T10:07:00.000Z', outcome: 'up', latencyMs: 120, detail: 'HTTP 200' },
    })
    await run(recovered)
    const reminder = message(id, `email:${ONCALL}`, {
      event: 'probe.still_down',
      previousState: 'down',
      at: '2026-11-20T12:30:00.000Z',
    })
    await run(reminder)
    const [[up], [still]] = sendSpy.mock.calls as unknown as [
      [{ subject: string; text: string }],
      [{ subject: string; text: string }],
    ]
    expect(up.subject).toBe('[UP] shop health')
    expect(up.text).toMatch(/down for 7 minutes/)
    expect(still.subject).toBe('[STILL DOWN] shop health')
    expect(still.text).toMatch(/down for 2 hours 30 minutes/)
    expect((await delivery(id, `email:${ONCALL}`))?.event).toBe('still_down')
  })

  it('should retry a failed send, then record the failure with the binding error quoted', async () => {
    sendSpy.mockRejectedValue(new Error('email to oncall@example.test not allowed'))
    const id = await insertProbe()
    const job = message(id, `email:${ONCALL}`)
    expect(await run(job, 1)).toEqual({ acked: false, retryDelay: backoffSeconds(1) })
    expect(await delivery(id, `email:${ONCALL}`)).toMatchObject({ status: 'pending', attempts: 1 })
    expect(await run(job, NOTIFY_ATTEMPTS)).toEqual({ acked: true, retryDelay: null })
    const row = await delivery(id, `email:${ONCALL}`)
    expect(row?.status).toBe('failed')
    expect(row?.lastError).toMatch(/email to oncall@example.test not allowed; gave up after/)
  })

  it('should not mail an address removed from the probe before delivery', async () => {
    const id = await insertProbe({ emails: ['someone-else@example.test'] })
    expect(await run(message(id, `email:${ONCALL}`))).toEqual({ acked: true, retryDelay: null })
    expect(sendSpy).not.toHaveBeenCalled()
  })
})

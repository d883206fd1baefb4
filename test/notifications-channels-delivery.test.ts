import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { JobMessage } from '../src/jobs/messages'
import { NOTIFY_ATTEMPTS } from '../src/notifications/channels'
import { raiseOperationalEvent } from '../src/notifications/operational'
import type { ProbeNotification, ProbeNotifyMessage } from '../src/notifications/probes/jobs'
import { captureJobs, runCron, runJobs, workerEnv } from './helpers/changelog'
import { createChannel, pagerdutyFake, slackFake } from './helpers/channels'
import { type Caller, ok } from './helpers/http'
import { runJob } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'
import { runScanShards, takeCheckPacks } from './helpers/probe-scan'
import { createProbe, probeRecord, STATUS_ORIGIN } from './probes/catalogue-fixture'

// Probe notifications reach the probe's channels through the queue: a real down and up of a real probe, the
// retries of a failing service, and a channel detached before delivery; every attempt is in the channel's log.

interface Delivery {
  id: string
  probeId: string | null
  event: string
  title: string
  status: string
  attempts: number
  answer: string | null
}

let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

const log = async (id: string) =>
  (await ok<{ deliveries: Delivery[] }>('notifications.channels.deliveries', { id }, admin)).deliveries

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Runs the minute scan as of `at`, its shards, and then every check job they queued. */
async function scanAndCheck(at: number): Promise<void> {
  const jobs = captureJobs()
  await runCron('* * * * *', at)
  await runScanShards(jobs.sent)
  const packs = takeCheckPacks(jobs.sent)
  jobs.sendBatch.mockRestore()
  for (const pack of packs) expect((await runJob(pack)).acked).toBe(true)
}

async function deliver(message: ProbeNotifyMessage, attempts: number) {
  const result = await runJobs([{ body: message, attempts }])
  return { acked: result.explicitAcks.includes('msg-0'), retryDelay: result.retryDelays['msg-0'] ?? null }
}

function notification(probeId: string): ProbeNotification {
  const at = new Date().toISOString()
  return {
    event: 'probe.state_changed',
    probe: {
      id: probeId,
      name: 'api',
      type: 'http',
      targetKind: 'external',
      targetId: null,
      target: 'https://x',
    },
    previousState: 'up',
    state: 'down',
    at,
    result: null,
    downSince: at,
  }
}

describe('probe notifications to channels', () => {
  it('should page PagerDuty and post to Slack when a probe goes down, and resolve when it is back', async () => {
    let status = 200
    fakeOrigin(STATUS_ORIGIN, () => new Response('fine', { status }))
    const pagerduty = pagerdutyFake()
    const slack = slackFake()
    const pd = await createChannel(admin, 'pagerduty')
    const sl = await createChannel(admin, 'slack')
    const probe = await createProbe(admin, {
      name: 'checkout',
      config: { failureThreshold: 1 },
      notifyConfig: { channels: [pd.id, sl.id], cooldownSeconds: 0 },
    })
    const due = (await probeRecord(probe.id))?.nextCheckAt?.getTime() ?? 0
    await scanAndCheck(due + 1000)
    status = 503
    await scanAndCheck(due + 61_000)
    await until(
      async () => pagerduty.received.length + slack.received.length,
      (count) => count >= 2,
    )
    expect(pagerduty.received.map((hit) => hit.json())).toEqual([
      expect.objectContaining({ event_action: 'trigger', dedup_key: `probe-${probe.id}` }),
    ])
    expect(slack.received[0]?.json().text).toContain('[DOWN] checkout')

    status = 200
    await scanAndCheck(due + 121_000)
    await until(
      async () => pagerduty.received.length,
      (count) => count >= 2,
    )
    expect(pagerduty.received[1]?.json()).toEqual(
      expect.objectContaining({ event_action: 'resolve', dedup_key: `probe-${probe.id}` }),
    )
    const delivered = await until(
      () => log(pd.id),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'delivered'),
    )
    expect(delivered.map((row) => [row.event, row.status, row.attempts, row.probeId])).toEqual([
      ['down->up', 'delivered', 1, probe.id],
      ['up->down', 'delivered', 1, probe.id],
    ])
  }, 20_000)

  it('should retry a failing service with backoff, logging each attempt on one row, and give up at the limit', async () => {
    const slack = slackFake()
    slack.statuses.push(503, 503, 200)
    const channel = await createChannel(admin, 'slack')
    const probe = await createProbe(admin, { notifyConfig: { channels: [channel.id] } })
    const message: ProbeNotifyMessage = {
      type: 'probe.notify',
      probeId: probe.id,
      target: `channel:${channel.id}`,
      notification: notification(probe.id),
    }
    expect(await deliver(message, 1)).toEqual({ acked: false, retryDelay: 30 })
    expect(await log(channel.id)).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        answer: 'answered 503: server error (invalid_payload)',
      }),
    ])
    expect(await deliver(message, 2)).toEqual({ acked: false, retryDelay: 60 })
    expect(await deliver(message, 3)).toEqual({ acked: true, retryDelay: null })
    // A duplicate of a settled delivery leaves its row as it is.
    await deliver(message, 3)
    expect(await log(channel.id)).toEqual([
      expect.objectContaining({
        event: 'up->down',
        status: 'delivered',
        attempts: 3,
        answer: 'answered 200: delivered',
      }),
    ])
    expect(slack.received).toHaveLength(4)

    const failing = slackFake()
    failing.statuses.push(500)
    const other: ProbeNotifyMessage = {
      ...message,
      notification: { ...notification(probe.id), at: '2026-01-01T00:00:00.000Z' },
    }
    expect(await deliver(other, NOTIFY_ATTEMPTS)).toEqual({ acked: true, retryDelay: null })
    const [last] = await log(channel.id)
    expect(last).toMatchObject({ status: 'failed', attempts: NOTIFY_ATTEMPTS })
    expect(last?.answer).toBe(
      `answered 500: server error (invalid_payload); gave up after ${NOTIFY_ATTEMPTS} attempts`,
    )
  })

  it('should send nothing to a channel detached from the probe before delivery, and say so', async () => {
    const slack = slackFake()
    const channel = await createChannel(admin, 'slack')
    const probe = await createProbe(admin, { notifyConfig: { channels: [channel.id] } })
    await ok('probes.update', { id: probe.id, notifyConfig: { channels: [] } }, admin)
    const message: ProbeNotifyMessage = {
      type: 'probe.notify',
      probeId: probe.id,
      target: `channel:${channel.id}`,
      notification: notification(probe.id),
    }
    expect(await deliver(message, 1)).toEqual({ acked: true, retryDelay: null })
    expect(slack.received).toHaveLength(0)
    expect(await log(channel.id)).toEqual([
      expect.objectContaining({
        status: 'failed',
        answer: 'not sent: the channel was removed from the probe before delivery',
      }),
    ])
  })
})

describe('an email channel with several recipients', () => {
  it('should retry only the recipients whose send failed, on probe and operational notifications alike', async () => {
    const refusedOnce = new Set(['b@channels.example.com'])
    const send = vi.spyOn(workerEnv.ALERT_EMAIL, 'send').mockImplementation(async (mail) => {
      const to = (mail as { to: string }).to
      if (refusedOnce.delete(to)) throw new Error('mailbox busy')
      return { messageId: `<${to}>` }
    })
    const recipients = ['a@channels.example.com', 'b@channels.example.com', 'c@channels.example.com']
    const channel = await createChannel(admin, 'email', { config: { recipients } })
    const probe = await createProbe(admin, { notifyConfig: { channels: [channel.id] } })
    const message: ProbeNotifyMessage = {
      type: 'probe.notify',
      probeId: probe.id,
      target: `channel:${channel.id}`,
      notification: notification(probe.id),
    }
    expect(await deliver(message, 1)).toEqual({ acked: false, retryDelay: 30 })
    const sentTo = () => send.mock.calls.map(([mail]) => (mail as { to: string }).to)
    expect(sentTo()).toEqual(recipients)
    expect(await log(channel.id)).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        answer: expect.stringContaining('mailbox busy'),
      }),
    ])
    expect(await deliver(message, 2)).toEqual({ acked: true, retryDelay: null })
    expect(sentTo()).toEqual([...recipients, 'b@channels.example.com'])
    expect(await log(channel.id)).toEqual([
      expect.objectContaining({
        status: 'delivered',
        attempts: 2,
        answer: expect.stringContaining('<b@channels'),
      }),
    ])

    send.mockClear()
    refusedOnce.add('c@channels.example.com')
    const jobs = captureJobs()
    await ok(
      'settings.notifications.set',
      { emails: [], webhook: null, channels: [channel.id], cooldownMinutes: 0 },
      admin,
    )
    await raiseOperationalEvent(workerEnv, {
      kind: 'node.unhealthy',
      key: `test:email-channel-${crypto.randomUUID().slice(0, 8)}`,
      subject: 'Node walk is unreachable',
      detail: 'three checks failed',
      link: '/fleet',
    })
    const [deliverJob] = jobs.sent.filter((m) => m.type === 'notification.deliver')
    jobs.sendBatch.mockRestore()
    expect(deliverJob).toBeDefined()
    const first = await runJobs([{ body: deliverJob as JobMessage, attempts: 1 }])
    expect(first.retryDelays['msg-0']).toBe(30)
    const second = await runJobs([{ body: deliverJob as JobMessage, attempts: 2 }])
    expect(second.explicitAcks).toContain('msg-0')
    expect(sentTo()).toEqual([...recipients, 'c@channels.example.com'])
    send.mockRestore()
    await ok('settings.notifications.set', { emails: [], webhook: null, channels: [] }, admin)
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import { raiseOperationalEvent } from '../src/notifications/operational'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { workerEnv } from './helpers/changelog'
import { createChannel, pagerdutyFake, slackFake } from './helpers/channels'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { opsSilent } from './helpers/notifications'
import { adminSession } from './helpers/principals'

// The operational notifications may be told through notification channels too.

let admin: Caller
let sent: SentJob[]

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
})

describe('settings.notifications with channels', () => {
  it('should tell the named channels of a raised problem, and refuse an unknown channel or removing a told one', async () => {
    const slack = slackFake()
    const pagerduty = pagerdutyFake()
    const sl = await createChannel(admin, 'slack')
    const pd = await createChannel(admin, 'pagerduty')
    const unknown = await call<{ issues: { path: string }[] }>(
      'settings.notifications.set',
      { emails: [], webhook: null, channels: [sl.id, 'no-such-channel'] },
      admin,
    )
    expect(unknown.status).toBe(400)
    expect(unknown.body.issues[0]?.path).toBe('channels.1')

    const saved = await ok<{ channels: string[] }>(
      'settings.notifications.set',
      { emails: [], webhook: null, channels: [sl.id, pd.id], cooldownMinutes: 0 },
      admin,
    )
    expect(saved.channels).toEqual([sl.id, pd.id])
    const key = `test:channels-${crypto.randomUUID().slice(0, 8)}`
    await raiseOperationalEvent(workerEnv, {
      kind: 'node.unhealthy',
      key,
      subject: 'Node walk is unreachable',
      detail: 'three checks failed',
      link: '/fleet',
    })
    await drainJobs(sent, 'notification.deliver')
    expect(slack.received[0]?.json().text).toContain('[PROBLEM] Node walk is unreachable')
    expect(pagerduty.received[0]?.json()).toMatchObject({
      event_action: 'trigger',
      dedup_key: `operational-${key}`,
    })
    const log = await ok<{ deliveries: { channel: string; target: string; status: string }[] }>(
      'settings.notifications.deliveries',
      {},
      admin,
    )
    expect(log.deliveries.filter((d) => d.channel === 'channel').map((d) => [d.target, d.status])).toEqual(
      expect.arrayContaining([
        [sl.id, 'delivered'],
        [pd.id, 'delivered'],
      ]),
    )

    const told = await call<{ detail: string }>('notifications.channels.remove', { id: sl.id }, admin)
    expect(told.status).toBe(409)
    expect(told.body.detail).toContain('operational')
    await opsSilent(admin)
    // Saving without channels keeps them; an empty list drops them.
    await ok('settings.notifications.set', { emails: [], webhook: null, channels: [] }, admin)
    expect(await ok('notifications.channels.remove', { id: sl.id }, admin)).toEqual({ removed: true })
  })
})

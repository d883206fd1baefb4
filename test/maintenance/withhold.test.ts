import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ProbeMonitor } from '../../durable-objects/probe-monitor'
import type { Env } from '../../src/env'
import type { ProbeNotifyMessage } from '../../src/notifications/probes/jobs'
import type { CheckOutcome, MonitorSnapshot } from '../../src/probes/monitor/api'
import { toSnapshot } from '../../src/probes/rows'
import {
  type Channel,
  createChannel,
  type FakeService,
  fakeService,
  pagerdutyFake,
} from '../helpers/channels'
import { type Caller, ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { createProbe, probeRecord, workerEnv } from '../probes/catalogue-fixture'
import { createStatusPage } from '../status-pages/fixture'
import { createWindow, once } from './fixture'

// The probe's monitor judges results stamped by the test's clock (each result's `at`, and each alarm standing for
// the moment it was set for), so windows a day ahead, or in March 2027, are driven without waiting for them.
const HOOKS = 'https://hooks.maintenance-example.com'
const SECRET = 'maintenance-webhook-secret-0123'
const MINUTE = 60_000
const HOUR = 60 * MINUTE

let admin: Caller
let pagerduty: Channel

beforeAll(async () => {
  admin = await adminSession()
  pagerduty = await createChannel(admin, 'pagerduty')
})

afterEach(() => {
  vi.restoreAllMocks()
})

interface Watched {
  id: string
  snapshot: MonitorSnapshot
  stub: DurableObjectStub<ProbeMonitor>
  /** Every queue message the monitor sent, in order. */
  sent: ProbeNotifyMessage[]
  hooks: FakeService
  pd: FakeService
}

/** An http probe (down on the first failure) alerting a signed webhook and a PagerDuty channel. */
async function watchedProbe(): Promise<Watched> {
  const probe = await createProbe(admin, {
    config: { failureThreshold: 1 },
    notifyConfig: { webhookUrl: `${HOOKS}/probe`, cooldownSeconds: 0, channels: [pagerduty.id] },
    webhookSecret: SECRET,
  })
  const row = await probeRecord(probe.id)
  if (!row) throw new Error('no probe row')
  const stub = workerEnv.PROBE_MONITOR.getByName(probe.id)
  const monitor = await runInDurableObject(stub, (instance) => (instance as unknown as { env: Env }).env)
  const sent: ProbeNotifyMessage[] = []
  vi.spyOn(monitor.JOBS, 'sendBatch').mockImplementation(async (messages) => {
    for (const message of messages) sent.push(message.body as ProbeNotifyMessage)
    return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } }
  })
  const hooks = fakeService(HOOKS, () => new Response('thanks'))
  return { id: probe.id, snapshot: toSnapshot(row), stub, sent, hooks, pd: pagerdutyFake() }
}

const apply = (probe: Watched, at: number, outcome: CheckOutcome) =>
  probe.stub.applyResult(probe.snapshot, {
    checkId: `${probe.id}:${at}`,
    at,
    outcome,
    latencyMs: 20,
    detail: outcome === 'down' ? 'HTTP 503' : 'HTTP 200',
  })

const announced = (probe: Watched) => probe.sent.filter((message) => !message.withheld)
const withheld = (probe: Watched) => probe.sent.filter((message) => message.withheld)
const summary = (messages: ProbeNotifyMessage[]) =>
  messages.map((m) => [m.target, m.notification.previousState, m.notification.state, m.notification.at])

/** Runs the monitor's alarms (each standing for its own time) until none is left. */
async function runAlarms(probe: Watched): Promise<void> {
  for (let i = 0; i < 20; i++) if (!(await runDurableObjectAlarm(probe.stub))) return
  throw new Error('the alarms did not end')
}

/** Delivers the messages through the real queue handler. */
async function deliver(messages: ProbeNotifyMessage[]): Promise<void> {
  for (const message of messages) expect((await runJob(message)).acked).toBe(true)
}

// A day ahead on the hour: no deadline the checks set is due while a test runs.
const T = Math.floor(Date.now() / HOUR) * HOUR + 24 * HOUR
const iso = (ms: number) => new Date(ms).toISOString()

describe('maintenance windows: withheld notifications', () => {
  it('should withhold a down inside a one-off window, log it as withheld, and send one down when it ends still down', async () => {
    const probe = await watchedProbe()
    await createWindow(admin, {
      title: 'Database upgrade',
      schedule: once(T + 10 * MINUTE, 0.5),
      probeIds: [probe.id],
    })
    await apply(probe, T, 'up')
    await apply(probe, T + 15 * MINUTE, 'down')
    expect(announced(probe)).toEqual([])
    expect(withheld(probe).map((m) => [m.target, m.notification.state, m.withheld])).toEqual([
      ['webhook', 'down', { title: 'Database upgrade', until: iso(T + 40 * MINUTE) }],
      [`channel:${pagerduty.id}`, 'down', { title: 'Database upgrade', until: iso(T + 40 * MINUTE) }],
    ])

    // Delivered as withheld (twice: a redelivered message): logged in the probe's and the channel's delivery
    // logs once, nothing sent.
    await deliver(withheld(probe))
    await deliver(withheld(probe))
    expect(probe.hooks.received).toHaveLength(0)
    expect(probe.pd.received).toHaveLength(0)
    const detail = await ok<{ deliveries: { target: string; status: string; lastError: string }[] }>(
      'probes.get',
      { id: probe.id },
      admin,
    )
    expect(detail.deliveries).toEqual([
      expect.objectContaining({
        target: 'webhook',
        status: 'withheld',
        event: 'up->down',
        attempts: 0,
        lastError: `withheld: maintenance "Database upgrade" until ${iso(T + 40 * MINUTE)}`,
      }),
    ])
    const log = await ok<{ deliveries: { probeId: string; status: string; event: string }[] }>(
      'notifications.channels.deliveries',
      { id: pagerduty.id },
      admin,
    )
    expect(log.deliveries.filter((d) => d.probeId === probe.id)).toEqual([
      expect.objectContaining({ status: 'withheld', event: 'up->down', attempts: 0 }),
    ])

    // The window ends with the probe still down: one notification, of the state now, stamped at the end.
    await runAlarms(probe)
    expect(summary(announced(probe))).toEqual([
      ['webhook', 'up', 'down', iso(T + 40 * MINUTE)],
      [`channel:${pagerduty.id}`, 'up', 'down', iso(T + 40 * MINUTE)],
    ])
    expect(announced(probe)[0]?.notification.downSince).toBe(iso(T + 15 * MINUTE))
    await deliver(announced(probe))
    expect(probe.hooks.received.map((hit) => JSON.parse(hit.body))).toEqual([
      expect.objectContaining({ event: 'probe.state_changed', previousState: 'up', state: 'down' }),
    ])
    expect(probe.pd.received.map((hit) => hit.json().event_action)).toEqual(['trigger'])

    // A retried alarm, or the probe's next result, owes nothing more; the all-clear later goes out as ever.
    await runDurableObjectAlarm(probe.stub)
    await apply(probe, T + 41 * MINUTE, 'down')
    expect(announced(probe)).toHaveLength(2)
    await apply(probe, T + 50 * MINUTE, 'up')
    expect(summary(announced(probe)).slice(2)).toEqual([
      ['webhook', 'down', 'up', iso(T + 50 * MINUTE)],
      [`channel:${pagerduty.id}`, 'down', 'up', iso(T + 50 * MINUTE)],
    ])
  })

  it('should send nothing at all when the probe is up again before a status page window ends', async () => {
    const probe = await watchedProbe()
    const page = await createStatusPage(admin, {
      groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
    })
    // The window names the page: it covers the probes the page lists.
    await createWindow(admin, { schedule: once(T + 10 * MINUTE, 0.5), statusPageIds: [page.id] })
    await apply(probe, T, 'up')
    await apply(probe, T + 15 * MINUTE, 'down')
    await apply(probe, T + 20 * MINUTE, 'up')
    await runAlarms(probe)
    expect(announced(probe)).toEqual([])
    expect(
      withheld(probe).map((m) => [m.target, m.notification.previousState, m.notification.state]),
    ).toEqual([
      ['webhook', 'up', 'down'],
      [`channel:${pagerduty.id}`, 'up', 'down'],
      ['webhook', 'down', 'up'],
      [`channel:${pagerduty.id}`, 'down', 'up'],
    ])
    await deliver(withheld(probe))
    expect(probe.hooks.received).toHaveLength(0)
    expect(probe.pd.received).toHaveLength(0)

    // After the window a down is announced as usual.
    await apply(probe, T + 45 * MINUTE, 'down')
    expect(summary(announced(probe))).toEqual([
      ['webhook', 'up', 'down', iso(T + 45 * MINUTE)],
      [`channel:${pagerduty.id}`, 'up', 'down', iso(T + 45 * MINUTE)],
    ])
  })

  it('should send the all-clear after a window in which a probe announced down came back', async () => {
    const probe = await watchedProbe()
    await createWindow(admin, { schedule: once(T + 10 * MINUTE, 0.5), probeIds: [probe.id] })
    await apply(probe, T, 'up')
    await apply(probe, T + 5 * MINUTE, 'down')
    expect(summary(announced(probe))).toHaveLength(2)
    await apply(probe, T + 20 * MINUTE, 'up')
    expect(announced(probe)).toHaveLength(2)
    await runAlarms(probe)
    expect(summary(announced(probe)).slice(2)).toEqual([
      ['webhook', 'down', 'up', iso(T + 40 * MINUTE)],
      [`channel:${pagerduty.id}`, 'down', 'up', iso(T + 40 * MINUTE)],
    ])
    expect(announced(probe)[2]?.notification.downSince).toBe(iso(T + 5 * MINUTE))
  })

  it('should queue the notification after a window exactly once when the queue refuses it at first', async () => {
    const probe = await watchedProbe()
    await createWindow(admin, { schedule: once(T + 10 * MINUTE, 0.5), probeIds: [probe.id] })
    await apply(probe, T, 'up')
    await apply(probe, T + 15 * MINUTE, 'down')
    const monitor = await runInDurableObject(
      probe.stub,
      (instance) => (instance as unknown as { env: Env }).env,
    )
    const capture = vi.mocked(monitor.JOBS.sendBatch).getMockImplementation()
    let refused = 0
    vi.mocked(monitor.JOBS.sendBatch).mockImplementation(async (messages) => {
      if (refused === 0 && [...messages].some((m) => !(m.body as ProbeNotifyMessage).withheld)) {
        refused++
        throw new Error('queue unavailable')
      }
      if (!capture) throw new Error('no capture')
      return capture(messages)
    })
    await runAlarms(probe)
    expect(refused).toBe(1)
    expect(summary(announced(probe))).toEqual([
      ['webhook', 'up', 'down', iso(T + 40 * MINUTE)],
      [`channel:${pagerduty.id}`, 'up', 'down', iso(T + 40 * MINUTE)],
    ])
  })

  it('should place a weekly Europe/Berlin window in local time across the change to summer time', async () => {
    const probe = await watchedProbe()
    await createWindow(admin, {
      title: 'Sunday patching',
      schedule: {
        kind: 'weekly',
        days: ['sun'],
        startTime: '03:00',
        durationMinutes: 60,
        timezone: 'Europe/Berlin',
      },
      probeIds: [probe.id],
    })
    // 21 March 2027 is in winter time (03:00 is 02:00 UTC); 28 March in summer time (03:00 is 01:00 UTC).
    const march21 = Date.UTC(2027, 2, 21)
    const march28 = Date.UTC(2027, 2, 28)
    await apply(probe, march21 + 60 * MINUTE, 'up')
    await apply(probe, march21 + 150 * MINUTE, 'down')
    await apply(probe, march21 + 165 * MINUTE, 'up')
    expect(withheld(probe).map((m) => m.withheld?.until)).toEqual([
      iso(march21 + 3 * HOUR),
      iso(march21 + 3 * HOUR),
      iso(march21 + 3 * HOUR),
      iso(march21 + 3 * HOUR),
    ])
    await apply(probe, march28 + 30 * MINUTE, 'up')
    expect(announced(probe)).toEqual([])

    await apply(probe, march28 + 90 * MINUTE, 'down')
    expect(withheld(probe).at(-1)?.withheld?.until).toBe(iso(march28 + 2 * HOUR))
    expect(announced(probe)).toEqual([])
    // 02:15 UTC is 04:15 in summer time: the window closed at 02:00 UTC, still down, then the probe recovered.
    await apply(probe, march28 + 135 * MINUTE, 'up')
    expect(summary(announced(probe))).toEqual([
      ['webhook', 'up', 'down', iso(march28 + 2 * HOUR)],
      [`channel:${pagerduty.id}`, 'up', 'down', iso(march28 + 2 * HOUR)],
      ['webhook', 'down', 'up', iso(march28 + 135 * MINUTE)],
      [`channel:${pagerduty.id}`, 'down', 'up', iso(march28 + 135 * MINUTE)],
    ])
  })

  it('should settle at once when the window covering withheld notifications is removed', async () => {
    const probe = await watchedProbe()
    const now = Date.now()
    const window = await createWindow(admin, {
      schedule: { kind: 'once', startsAt: iso(now - 2 * MINUTE), endsAt: iso(now + HOUR) },
      probeIds: [probe.id],
    })
    await apply(probe, now - MINUTE, 'up')
    await apply(probe, now - 30_000, 'down')
    expect(withheld(probe)).toHaveLength(2)
    await ok('maintenance.remove', { id: window.id }, admin)
    // The settlement is due now: the runtime may run the alarm by itself before the test does.
    await runAlarms(probe)
    await vi.waitUntil(() => announced(probe).length >= 2, { timeout: 5000, interval: 50 })
    expect(summary(announced(probe)).map(([target, from, to]) => [target, from, to])).toEqual([
      ['webhook', 'up', 'down'],
      [`channel:${pagerduty.id}`, 'up', 'down'],
    ])
  })
})

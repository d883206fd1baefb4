import { runInDurableObject } from 'cloudflare:test'
import { and, eq } from 'drizzle-orm'
import { describe, expect, it, vi } from 'vitest'
import { probeRollups } from '../../src/db/schema/probes'
import type { ProbeNotifyMessage } from '../../src/notifications/probes/jobs'
import type { CheckOutcome, WatchChange } from '../../src/probes/monitor/api'
import { fakeOrigin } from '../helpers/outbound'
import {
  catalogue,
  database,
  events,
  hourlyChecks,
  monitorEnv,
  monitoredProbe,
  result,
  runAlarmsUntil,
} from './monitor-fixture'

describe('ProbeMonitor: check results', () => {
  it('should write exactly one down event for 5 failures with threshold 3, and apply a check id once', async () => {
    const fixture = await monitoredProbe('http', { failureThreshold: 3, intervalSeconds: 60 })
    const { snapshot, stub } = fixture
    await stub.applyResult(snapshot, result(snapshot, 0, 'up'))
    for (let n = 1; n <= 5; n++) await stub.applyResult(snapshot, result(snapshot, n, 'down'))
    await stub.applyResult(snapshot, result(snapshot, 5, 'down'))
    expect(await stub.live()).toMatchObject({ state: 'down', consecutiveFailures: 5 })
    const changes = await events(snapshot.id)
    expect(changes.map((e) => [e.previousState, e.state, e.at.getTime()])).toEqual([
      ['paused', 'up', result(snapshot, 0, 'up').at],
      ['up', 'down', result(snapshot, 3, 'down').at],
    ])
    expect(changes[1]?.detail).toBe('HTTP 503')

    await runAlarmsUntil(stub, async () => (await hourlyChecks(snapshot.id)) === 6)
    expect(await catalogue(snapshot.id)).toMatchObject({ consecutiveFailures: 5 })
    const [hourly] = await database
      .select()
      .from(probeRollups)
      .where(and(eq(probeRollups.probeId, snapshot.id), eq(probeRollups.granularity, 'hourly')))
    expect(hourly).toMatchObject({
      up: 1,
      down: 5,
      degraded: 0,
      latencyCount: 6,
      latencySumMs: 120,
      latencyMaxMs: 20,
    })
  })

  it('should run its own checks from the alarm when the interval is under a minute, one slot each', async () => {
    let status = 200
    fakeOrigin('https://status.monitor-example.com', () => new Response('ok', { status }))
    const { snapshot, stub } = await monitoredProbe('http', { intervalSeconds: 30, failureThreshold: 1 })
    // The first slot is due at once: the alarm runs it without being told.
    await vi.waitUntil(async () => (await stub.live())?.state === 'up', { timeout: 5000, interval: 50 })
    status = 503
    await runAlarmsUntil(stub, async () => (await stub.live())?.state === 'down')
    expect((await stub.live())?.lastResult?.detail).toMatch(/HTTP 503/)
    const slots = await runInDurableObject(stub, (_, state) => state.storage.kv.get<string[]>('checks') ?? [])
    const times = slots.map((id) => Number(id.slice(snapshot.id.length + 1)))
    expect(slots.length).toBeGreaterThanOrEqual(2)
    expect(slots.every((id) => id.startsWith(`${snapshot.id}:`))).toBe(true)
    expect(times.slice(1).map((t, i) => t - (times[i] ?? 0))).toEqual(times.slice(1).map(() => 30_000))
  })

  it('should notify entering flapping once, and write no event and notify nothing while it flaps', async () => {
    const fixture = await monitoredProbe(
      'http',
      { failureThreshold: 1, flapThreshold: 2, flapWindowSeconds: 600, intervalSeconds: 60 },
      { webhookUrl: 'https://hooks.monitor-example.com/probe', cooldownSeconds: 0 },
    )
    const { snapshot, stub } = fixture
    const monitor = await monitorEnv(stub)
    const sent: ProbeNotifyMessage[] = []
    vi.spyOn(monitor.JOBS, 'sendBatch').mockImplementation(async (messages) => {
      for (const message of messages) sent.push(message.body as ProbeNotifyMessage)
      return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } }
    })
    const outcomes: CheckOutcome[] = ['up', 'down', 'up', 'down', 'up', 'down', 'up']
    for (const [n, outcome] of outcomes.entries())
      await stub.applyResult(snapshot, result(snapshot, n, outcome))

    expect((await stub.live())?.state).toBe('flapping')
    expect((await events(snapshot.id)).map((e) => e.state)).toEqual(['up', 'down', 'up', 'flapping'])
    expect(sent.map((m) => [m.target, m.notification.previousState, m.notification.state])).toEqual([
      ['webhook', 'up', 'down'],
      ['webhook', 'down', 'up'],
      ['webhook', 'up', 'flapping'],
    ])

    // A quiet window later, one event back to the underlying state.
    await runAlarmsUntil(stub, async () => (await stub.live())?.state !== 'flapping')
    const last = (await events(snapshot.id)).at(-1)
    expect(last).toMatchObject({
      previousState: 'flapping',
      state: 'up',
      at: new Date(result(snapshot, 6, 'up').at + 600_000),
    })
  })

  it('should pause on disable, publish each (state, enabled, lastChangedAt) change, and ignore results while paused', async () => {
    const fixture = await monitoredProbe('http', { intervalSeconds: 60 })
    const { snapshot, stub } = fixture
    const monitor = await monitorEnv(stub)
    const published: WatchChange[] = []
    const publish = async (change: WatchChange) => {
      published.push(change)
    }
    vi.spyOn(monitor.WATCH_HUB, 'getByName').mockReturnValue({ publish } as never)
    await stub.applyResult(snapshot, result(snapshot, 0, 'up'))
    await stub.applyResult(snapshot, result(snapshot, 1, 'up'))
    const disabled = { ...snapshot, enabled: false, version: snapshot.version + 1 }
    expect(await stub.configure(disabled)).toMatchObject({ state: 'paused' })
    await stub.applyResult(disabled, result(snapshot, 2, 'down'))
    expect(await stub.configure({ ...disabled, enabled: true, version: snapshot.version + 2 })).toMatchObject(
      {
        state: 'paused',
      },
    )
    expect(published.map((c) => [c.state, c.enabled])).toEqual([
      ['up', true],
      ['paused', false],
      ['paused', true],
    ])
    expect(published[0]).toEqual({
      id: snapshot.id,
      name: snapshot.name,
      state: 'up',
      enabled: true,
      lastChangedAt: new Date(result(snapshot, 0, 'up').at).toISOString(),
      targetKind: 'external',
      targetId: null,
    })
    expect((await events(snapshot.id)).map((e) => e.state)).toEqual(['up', 'paused'])
    // An older snapshot never replaces a newer one.
    expect(await stub.configure(snapshot)).toMatchObject({ state: 'paused' })
    expect(published).toHaveLength(3)
  })

  it('should publish every change in order after the hub was unreachable: a blip up → down → up is three', async () => {
    const fixture = await monitoredProbe('http', { intervalSeconds: 60, failureThreshold: 1 })
    const { snapshot, stub } = fixture
    const monitor = await monitorEnv(stub)
    const published: WatchChange[] = []
    let reachable = false
    const publish = async (change: WatchChange) => {
      if (!reachable) throw new Error('the hub is unreachable')
      published.push(change)
    }
    vi.spyOn(monitor.WATCH_HUB, 'getByName').mockReturnValue({ publish } as never)
    const outcomes = ['up', 'down', 'up'] as const
    for (const [i, outcome] of outcomes.entries())
      await stub.applyResult(snapshot, result(snapshot, i, outcome))
    expect(published).toEqual([])
    reachable = true
    // The next input finds changes owed and flushes them, oldest first.
    await stub.applyResult(snapshot, result(snapshot, 3, 'up'))
    expect(published.map((c) => [c.state, c.lastChangedAt])).toEqual(
      outcomes.map((outcome, i) => [outcome, new Date(result(snapshot, i, outcome).at).toISOString()]),
    )
  })
})

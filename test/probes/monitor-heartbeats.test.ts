import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { eq } from 'drizzle-orm'
import { describe, expect, it, vi } from 'vitest'
import { probeRollups } from '../../src/db/schema/probes'
import { randomSecret } from '../../src/lib/encoding'
import type { ProbeNotifyMessage } from '../../src/notifications/probes/jobs'
import {
  catalogue,
  database,
  events,
  hourlyChecks,
  monitorEnv,
  monitoredProbe,
  ownRaw,
  ping,
  rawRows,
  runAlarmsUntil,
  workerEnv,
} from './monitor-fixture'

describe('ProbeMonitor: heartbeats', () => {
  it('should go down exactly at last ping + interval + grace, and up again on the next ping', async () => {
    const fixture = await monitoredProbe('heartbeat', { intervalSeconds: 300, graceSeconds: 60 })
    const pingedAt = Date.now()
    expect(await ping(fixture, { at: pingedAt })).toBe(true)
    expect(await fixture.stub.live()).toMatchObject({ state: 'up', lastChangedAt: pingedAt })

    const deadline = pingedAt + 360_000
    await runAlarmsUntil(fixture.stub, async () => (await fixture.stub.live())?.state === 'down')
    expect(await fixture.stub.live()).toMatchObject({
      state: 'down',
      lastChangedAt: deadline,
      consecutiveFailures: 1,
    })
    const [up, down] = await events(fixture.snapshot.id)
    expect(up).toMatchObject({ previousState: 'paused', state: 'up', at: new Date(pingedAt) })
    expect(down).toMatchObject({
      previousState: 'up',
      state: 'down',
      at: new Date(deadline),
      detail: 'no ping within 360 s',
    })
    expect(await catalogue(fixture.snapshot.id)).toMatchObject({
      state: 'down',
      lastChangedAt: new Date(deadline),
    })

    expect(await ping(fixture)).toBe(true)
    expect((await fixture.stub.live())?.state).toBe('up')
    expect((await events(fixture.snapshot.id)).map((e) => e.state)).toEqual(['up', 'down', 'up'])
  })

  it('should stamp down at the deadline even when the alarm runs late', async () => {
    const fixture = await monitoredProbe('heartbeat', { intervalSeconds: 30, graceSeconds: 0 })
    // A ping 90 s ago: its deadline passed 60 s ago, so the alarm is already overdue when set.
    const pingedAt = Date.now() - 90_000
    expect(await ping(fixture, { at: pingedAt })).toBe(true)
    await vi.waitUntil(async () => (await fixture.stub.live())?.state === 'down', {
      timeout: 5000,
      interval: 50,
    })
    const down = (await events(fixture.snapshot.id)).find((e) => e.state === 'down')
    expect(down?.at).toEqual(new Date(pingedAt + 30_000))
  })

  it('should arm the deadline when configured, so a heartbeat never pinged goes down', async () => {
    const armedAt = Date.now()
    const fixture = await monitoredProbe('heartbeat', { intervalSeconds: 60, graceSeconds: 0 })
    await runAlarmsUntil(fixture.stub, async () => (await fixture.stub.live())?.state === 'down')
    const [down] = await events(fixture.snapshot.id)
    expect(down?.previousState).toBe('paused')
    expect(down?.at.getTime()).toBeGreaterThanOrEqual(armedAt + 60_000)
  })

  it('should remind while down from the same alarm, repeatWhileDownMinutes after the down', async () => {
    const fixture = await monitoredProbe(
      'heartbeat',
      { intervalSeconds: 300, graceSeconds: 0 },
      {
        webhookUrl: 'https://hooks.monitor-example.com/probe',
        cooldownSeconds: 0,
        repeatWhileDownMinutes: 10,
      },
    )
    const monitor = await monitorEnv(fixture.stub)
    const sent: ProbeNotifyMessage[] = []
    vi.spyOn(monitor.JOBS, 'sendBatch').mockImplementation(async (messages) => {
      for (const message of messages) sent.push(message.body as ProbeNotifyMessage)
      return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } }
    })
    const pingedAt = Date.now()
    await ping(fixture, { at: pingedAt })
    await runAlarmsUntil(fixture.stub, async () =>
      sent.some((m) => m.notification.event === 'probe.still_down'),
    )
    const down = pingedAt + 300_000
    expect(sent.map((m) => [m.notification.event, m.notification.state, m.notification.at])).toEqual([
      ['probe.state_changed', 'down', new Date(down).toISOString()],
      ['probe.still_down', 'down', new Date(down + 600_000).toISOString()],
    ])
    expect(sent[1]?.notification.downSince).toBe(new Date(down).toISOString())
  })

  it('should count /fail and a non-zero exit status as failures, and time a run from its /start', async () => {
    const fixture = await monitoredProbe('heartbeat', { intervalSeconds: 3600, graceSeconds: 60 })
    const t = Date.now()
    await ping(fixture, { at: t })
    expect(await ping(fixture, { signal: 'start', at: t + 1000 })).toBe(true)
    expect((await fixture.stub.live())?.state).toBe('up')
    await ping(fixture, { signal: 'fail', exitStatus: 3, at: t + 4000, body: 'disk full' })
    const live = await fixture.stub.live()
    expect(live).toMatchObject({ state: 'down', consecutiveFailures: 1 })
    expect(live?.lastPing).toEqual({
      at: new Date(t + 4000).toISOString(),
      signal: 'fail',
      exitStatus: 3,
      body: 'disk full',
      durationMs: 3000,
    })
    expect(live?.lastResult).toMatchObject({ outcome: 'down', detail: 'exit status 3', latencyMs: 3000 })
  })

  it('should go down when a run signalled /start does not finish within the grace', async () => {
    const fixture = await monitoredProbe('heartbeat', { intervalSeconds: 3600, graceSeconds: 120 })
    const t = Date.now()
    await ping(fixture, { at: t })
    await ping(fixture, { signal: 'start', at: t + 1000 })
    await runAlarmsUntil(fixture.stub, async () => (await fixture.stub.live())?.state === 'down')
    const down = (await events(fixture.snapshot.id)).find((e) => e.state === 'down')
    expect(down).toMatchObject({ at: new Date(t + 121_000), detail: 'started, not finished within 120 s' })
    // The late finish still counts: the run reported back.
    await ping(fixture, { at: t + 200_000 })
    expect((await fixture.stub.live())?.state).toBe('up')
  })

  it('should refuse a wrong secret, a paused or an archived probe, and a probe that is no heartbeat', async () => {
    const fixture = await monitoredProbe('heartbeat', {})
    expect(await ping(fixture, { secret: randomSecret() })).toBe(false)
    await fixture.stub.configure({
      ...fixture.snapshot,
      enabled: false,
      version: fixture.snapshot.version + 1,
    })
    expect(await ping(fixture)).toBe(false)
    await fixture.stub.configure({
      ...fixture.snapshot,
      archived: true,
      version: fixture.snapshot.version + 2,
    })
    expect(await ping(fixture)).toBe(false)
    expect(await runDurableObjectAlarm(fixture.stub)).toBe(false)
    const http = await monitoredProbe('http', {})
    expect(
      await http.stub.ping({ secret: fixture.secret, signal: 'success', exitStatus: null, body: '', at: 1 }),
    ).toBe(false)
    const stranger = workerEnv.PROBE_MONITOR.getByName(crypto.randomUUID())
    expect(
      await stranger.ping({ secret: fixture.secret, signal: 'success', exitStatus: null, body: '', at: 1 }),
    ).toBe(false)
    expect(await stranger.live()).toBeNull()
    const tables = await runInDurableObject(stranger, (_, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name LIKE 'pending%'").toArray(),
    )
    expect(tables).toEqual([])
  })

  it('should record every one of many concurrent pings, in its raw history and once the hour closed in the rollups', async () => {
    const fixture = await monitoredProbe('heartbeat', {})
    const answers = await Promise.all(Array.from({ length: 40 }, () => ping(fixture)))
    expect(answers.filter(Boolean)).toHaveLength(40)
    expect(await ownRaw(fixture.stub)).toHaveLength(40)
    await runAlarmsUntil(fixture.stub, async () => (await hourlyChecks(fixture.snapshot.id)) === 40)
    const rollups = await database
      .select()
      .from(probeRollups)
      .where(eq(probeRollups.probeId, fixture.snapshot.id))
    const sum = (granularity: string) =>
      rollups.filter((r) => r.granularity === granularity).reduce((total, r) => total + r.up, 0)
    expect([sum('hourly'), sum('daily')]).toEqual([40, 40])
  })

  it('should keep what D1 refused and write it from the next alarm, the ping answered all the same', async () => {
    const fixture = await monitoredProbe('heartbeat', {})
    const monitor = await monitorEnv(fixture.stub)
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(monitor.DB, 'batch').mockRejectedValueOnce(new Error('D1 is unavailable'))
    expect(await ping(fixture)).toBe(true)
    expect(await events(fixture.snapshot.id)).toHaveLength(0)
    await runAlarmsUntil(fixture.stub, async () => (await events(fixture.snapshot.id)).length === 1)
    expect(await catalogue(fixture.snapshot.id)).toMatchObject({ state: 'up' })
    expect(await ownRaw(fixture.stub)).toHaveLength(1)
  })

  it('should keep every result in its own raw history, none in D1, and count them all in the rollups', async () => {
    const fixture = await monitoredProbe('heartbeat', {})
    await ping(fixture)
    for (let i = 0; i < 120; i++) await ping(fixture)
    await runAlarmsUntil(fixture.stub, async () => (await hourlyChecks(fixture.snapshot.id)) === 121)
    expect(await ownRaw(fixture.stub)).toHaveLength(121)
    expect(await rawRows(fixture.snapshot.id)).toHaveLength(0)
  })

  it('should write a state change to D1 in one batch, and touch no D1 for a ping that changes nothing', async () => {
    const fixture = await monitoredProbe('heartbeat', {})
    const monitor = await monitorEnv(fixture.stub)
    const batch = vi.spyOn(monitor.DB, 'batch')
    const prepare = vi.spyOn(monitor.DB, 'prepare')
    await ping(fixture)
    expect(batch).toHaveBeenCalledTimes(1)
    expect(prepare.mock.calls.every(([query]) => !/^select/i.test(query))).toBe(true)
    const row = await catalogue(fixture.snapshot.id)
    expect(row).toMatchObject({ state: 'up', consecutiveFailures: 0 })
    expect(row?.lastResult).toMatchObject({ outcome: 'up', detail: 'ping received' })
    expect(await events(fixture.snapshot.id)).toHaveLength(1)

    batch.mockClear()
    prepare.mockClear()
    const exec = vi.spyOn(monitor.DB, 'exec')
    for (let i = 0; i < 5; i++) expect(await ping(fixture)).toBe(true)
    expect([batch.mock.calls.length, prepare.mock.calls.length, exec.mock.calls.length]).toEqual([0, 0, 0])
    expect([(await ownRaw(fixture.stub)).length, (await rawRows(fixture.snapshot.id)).length]).toEqual([6, 0])
  })
})

import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { and, eq } from 'drizzle-orm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ProbeMonitor } from '../../durable-objects/probe-monitor'
import { db } from '../../src/db/client'
import { probeResults, probeRollups, probes } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import { randomSecret } from '../../src/lib/encoding'
import type { ProbeNotifyMessage } from '../../src/notifications/probes/jobs'
import { NotifyConfigSchema, PROBE_CONFIG_SCHEMAS, type ProbeType } from '../../src/probes/config'
import { hashHeartbeatSecret } from '../../src/probes/heartbeat/token'
import type { CheckOutcome, MonitorSnapshot, Ping, WatchChange } from '../../src/probes/monitor/api'
import { toSnapshot } from '../../src/probes/rows'
import { fakeOrigin } from '../helpers/outbound'

const workerEnv = env as unknown as Env
const database = db(workerEnv.DB)

interface Fixture {
  snapshot: MonitorSnapshot
  secret: string
  stub: DurableObjectStub<ProbeMonitor>
}

/** A probes row written straight to D1 (the catalogue's side) and handed to its monitor. */
async function monitoredProbe(
  type: ProbeType,
  config: Record<string, unknown>,
  notify: Record<string, unknown> = {},
): Promise<Fixture> {
  const id = crypto.randomUUID()
  const secret = randomSecret()
  const now = new Date()
  const [row] = await database
    .insert(probes)
    .values({
      id,
      name: `monitor ${id.slice(0, 8)}`,
      type,
      targetKind: 'external',
      targetId: null,
      target: type === 'heartbeat' ? 'heartbeat' : 'https://status.monitor-example.com/',
      config: PROBE_CONFIG_SCHEMAS[type].parse(config),
      notifyConfig: NotifyConfigSchema.parse(notify),
      webhookSecret: null,
      heartbeatTokenHash: type === 'heartbeat' ? await hashHeartbeatSecret(secret) : null,
      state: 'paused',
      enabled: true,
      consecutiveFailures: 0,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
  if (!row) throw new Error('no probe row')
  const snapshot = toSnapshot(row)
  const stub = workerEnv.PROBE_MONITOR.getByName(id)
  await stub.configure(snapshot)
  return { snapshot, secret, stub }
}

const ping = (fixture: Fixture, fields: Partial<Ping> = {}): Promise<boolean> =>
  fixture.stub.ping({
    secret: fixture.secret,
    signal: 'success',
    exitStatus: null,
    body: '',
    at: Date.now(),
    ...fields,
  })

function events(probeId: string) {
  return database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'event')))
    .orderBy(probeResults.id)
}

/** Raw rows in D1: none come from a monitor (its raw results stay in its own storage). */
function rawRows(probeId: string) {
  return database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'raw')))
}

/** The monitor's own raw results, newest first. */
const ownRaw = (stub: DurableObjectStub<ProbeMonitor>) => stub.rawResults(0, Number.MAX_SAFE_INTEGER, null)

/** The checks D1's hourly rollups of the probe count. */
async function hourlyChecks(probeId: string): Promise<number> {
  const rows = await database
    .select()
    .from(probeRollups)
    .where(and(eq(probeRollups.probeId, probeId), eq(probeRollups.granularity, 'hourly')))
  return rows.reduce((total, r) => total + r.up + r.down + r.degraded, 0)
}

async function catalogue(probeId: string) {
  const [row] = await database.select().from(probes).where(eq(probes.id, probeId))
  return row
}

/** The monitor's own bindings, to watch what it sends (the test's env is another object). */
function monitorEnv(stub: DurableObjectStub<ProbeMonitor>): Promise<Env> {
  return runInDurableObject(stub, (instance) => (instance as unknown as { env: Env }).env)
}

/** Runs the monitor's alarms until `done` holds (each run stands for the moment it was set for). */
async function runAlarmsUntil(stub: DurableObjectStub<ProbeMonitor>, done: () => Promise<boolean>) {
  for (let i = 0; i < 10; i++) {
    if (await done()) return
    if (!(await runDurableObjectAlarm(stub))) break
  }
  if (!(await done())) throw new Error('the alarms ran out before the condition held')
}

// Checks a day ahead: no deadline they set is already due, so no alarm runs by itself during a test.
const CHECKS_FROM = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 86_400_000

const result = (snapshot: MonitorSnapshot, n: number, outcome: CheckOutcome) => ({
  checkId: `${snapshot.id}:${n}`,
  at: CHECKS_FROM + n * 60_000,
  outcome,
  latencyMs: 20,
  detail: outcome === 'down' ? 'HTTP 503' : 'HTTP 200',
})

afterEach(() => {
  vi.restoreAllMocks()
})

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

import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { and, eq } from 'drizzle-orm'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { HeartbeatLedger } from '../../durable-objects/heartbeat-ledger'
import type { ProbeMonitor } from '../../durable-objects/probe-monitor'
import { db } from '../../src/db/client'
import { probeResults, probeRollups } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import { randomSecret } from '../../src/lib/encoding'
import { ledgerFor, ledgerShard } from '../../src/probes/heartbeat/ledger-api'
import { type Caller, type CallResult, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'

// The heartbeat ledger: plain pings of an up heartbeat are recorded by its shard of HeartbeatLedger objects; the
// probe's own monitor sees the first ping, /start, /fail and every ping while the probe is not up.
const workerEnv = env as unknown as Env
const database = db(workerEnv.DB)
let admin: Caller

beforeAll(async () => {
  admin = await adminSession()
})

afterEach(() => {
  vi.restoreAllMocks()
})

interface Heartbeat {
  id: string
  heartbeatToken: string
}

function createHeartbeat(config: Record<string, unknown> = {}): Promise<Heartbeat> {
  return ok<Heartbeat>(
    'probes.create',
    {
      name: `ledger ${crypto.randomUUID().slice(0, 8)}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly job',
      config,
    },
    admin,
  )
}

const pingPath = (token: string, suffix = '') => `/api/heartbeat/${token}${suffix}`
const pingOf = (probe: Heartbeat, suffix = '') => send(pingPath(probe.heartbeatToken, suffix))
const monitorOf = (id: string): DurableObjectStub<ProbeMonitor> => workerEnv.PROBE_MONITOR.getByName(id)
const ledgerOf = (id: string) => ledgerFor(workerEnv, id) as DurableObjectStub<HeartbeatLedger>

/** What the monitor keeps of its state and its heartbeat, straight from its storage. */
function monitorMemory(id: string) {
  return runInDurableObject(monitorOf(id), (_, state) => ({
    state: state.storage.kv.get('state'),
    heartbeat: state.storage.kv.get('heartbeat'),
  }))
}

/** An object's own bindings, to watch what it sends (the test's env is another object). */
function envOf(stub: DurableObjectStub<ProbeMonitor> | DurableObjectStub<HeartbeatLedger>): Promise<Env> {
  return runInDurableObject(stub, (instance) => (instance as unknown as { env: Env }).env)
}

async function upCount(probeId: string, granularity: 'hourly' | 'daily' = 'hourly') {
  const rows = await database
    .select()
    .from(probeRollups)
    .where(and(eq(probeRollups.probeId, probeId), eq(probeRollups.granularity, granularity)))
  return rows.reduce((total, r) => total + r.up, 0)
}

/** The raw results the history answers: the ledger's pings in D1 and those the monitor kept. */
async function rawRows(probeId: string) {
  const ledgers = await database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'raw')))
  const own = await workerEnv.PROBE_MONITOR.getByName(probeId).rawResults(0, Number.MAX_SAFE_INTEGER, null)
  return [
    ...ledgers.map((r) => ({ state: r.state, detail: r.detail })),
    ...own.map((r) => ({ state: r.outcome, detail: r.detail })),
  ]
}

function events(probeId: string) {
  return database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'event')))
    .orderBy(probeResults.id)
}

/** The answer with what names this request (its path, its request id) taken out. */
function shape(answer: CallResult, path: string) {
  const body = JSON.parse(answer.text.replaceAll(path, '<path>')) as Record<string, unknown>
  return {
    status: answer.status,
    headers: [...answer.headers.keys()].sort(),
    body: { ...body, requestId: typeof body.requestId },
  }
}

async function unknownAnswer() {
  const unknown = `hb_${crypto.randomUUID()}_${randomSecret()}`
  return shape(await send(pingPath(unknown)), pingPath(unknown))
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('heartbeat ledger', () => {
  it('should take the first ping in the monitor (paused → up) and the next ones in the ledger', async () => {
    const probe = await createHeartbeat()
    expect((await pingOf(probe)).status).toBe(200)
    expect(await monitorOf(probe.id).live()).toMatchObject({ state: 'up' })
    expect((await events(probe.id)).map((e) => [e.previousState, e.state])).toEqual([['paused', 'up']])
    expect(await ledgerOf(probe.id).lastPing(probe.id)).toBeNull()

    await pause(5)
    expect((await pingOf(probe, '/0')).status).toBe(200)
    const recorded = await ledgerOf(probe.id).lastPing(probe.id)
    expect(recorded).toMatchObject({ signal: 'success', exitStatus: 0, body: '', durationMs: null })
    // probes.get reads the newer of the monitor's and the ledger's last ping.
    const detail = await ok<{ lastPing: unknown; lastCheckedAt: string }>(
      'probes.get',
      { id: probe.id },
      admin,
    )
    expect(detail.lastPing).toEqual(recorded)
    expect(detail.lastCheckedAt).toBe(recorded?.at)
  })

  it('should record a ping to an up heartbeat in the ledger, touching neither the monitor nor D1', async () => {
    const probe = await createHeartbeat()
    expect((await pingOf(probe)).status).toBe(200)
    const before = await monitorMemory(probe.id)
    const monitorDb = (await envOf(monitorOf(probe.id))).DB
    const ledgerDb = (await envOf(ledgerOf(probe.id))).DB
    const spies = [
      vi.spyOn(monitorDb, 'batch'),
      vi.spyOn(monitorDb, 'prepare'),
      vi.spyOn(ledgerDb, 'batch'),
      vi.spyOn(ledgerDb, 'prepare'),
    ]
    for (let i = 0; i < 5; i++) expect((await pingOf(probe)).status).toBe(200)
    expect(spies.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0])
    expect(await monitorMemory(probe.id)).toEqual(before)
    expect(await upCount(probe.id)).toBe(1)

    // The ledger's own alarm writes its counts and raw rows to D1.
    vi.restoreAllMocks()
    expect(await runDurableObjectAlarm(ledgerOf(probe.id))).toBe(true)
    expect([await upCount(probe.id), await upCount(probe.id, 'daily')]).toEqual([6, 6])
    const raw = await rawRows(probe.id)
    expect(raw).toHaveLength(6)
    expect(raw.every((row) => row.state === 'up' && row.detail === 'ping received')).toBe(true)
  })

  it('should go down exactly at the last ledger ping + interval + grace, the alarm asking the ledger first', async () => {
    const probe = await createHeartbeat({ intervalSeconds: 300, graceSeconds: 60 })
    expect((await pingOf(probe)).status).toBe(200)
    await pause(20)
    expect((await pingOf(probe)).status).toBe(200)
    const lastAt = Date.parse((await ledgerOf(probe.id).lastPing(probe.id))?.at ?? '')
    const monitor = monitorOf(probe.id)

    // The alarm set for the monitor's own ping + 360 s finds a newer ping in the ledger: no miss, re-armed.
    expect(await runDurableObjectAlarm(monitor)).toBe(true)
    expect((await monitor.live())?.state).toBe('up')
    expect(await runInDurableObject(monitor, (_, state) => state.storage.getAlarm())).toBe(lastAt + 360_000)

    expect(await runDurableObjectAlarm(monitor)).toBe(true)
    expect(await monitor.live()).toMatchObject({ state: 'down', lastChangedAt: lastAt + 360_000 })
    const down = (await events(probe.id)).filter((e) => e.state === 'down')
    expect(down).toHaveLength(1)
    expect(down[0]).toMatchObject({ at: new Date(lastAt + 360_000), detail: 'no ping within 360 s' })

    // Down: the next ping goes to the monitor again and brings the probe up.
    expect((await pingOf(probe)).status).toBe(200)
    expect((await monitor.live())?.state).toBe('up')
  })

  it('should hand /start, the ping after it, /fail and the pings while down to the monitor', async () => {
    const probe = await createHeartbeat({ intervalSeconds: 3600, graceSeconds: 600 })
    const monitor = monitorOf(probe.id)
    expect((await pingOf(probe)).status).toBe(200)
    expect((await pingOf(probe, '/start')).status).toBe(200)
    expect((await monitorMemory(probe.id)).heartbeat).toMatchObject({ startedAt: expect.any(Number) })
    await pause(5)
    expect((await pingOf(probe)).status).toBe(200)
    // Timed from its /start: only the monitor knows when the run began.
    expect((await monitor.live())?.lastPing).toMatchObject({
      signal: 'success',
      durationMs: expect.any(Number),
    })
    expect((await pingOf(probe, '/fail')).status).toBe(200)
    expect((await monitor.live())?.state).toBe('down')
    expect((await pingOf(probe, '/3')).status).toBe(200)
    expect(await monitor.live()).toMatchObject({ state: 'down', consecutiveFailures: 2 })
    expect((await pingOf(probe)).status).toBe(200)
    expect((await monitor.live())?.state).toBe('up')
    expect(await ledgerOf(probe.id).lastPing(probe.id)).toBeNull()
  })

  it('should answer 404 at once after a pause or an archive, exactly as an unknown path', async () => {
    const probe = await createHeartbeat()
    const path = pingPath(probe.heartbeatToken)
    expect((await pingOf(probe)).status).toBe(200)
    expect((await pingOf(probe)).status).toBe(200)
    expect(await ledgerOf(probe.id).lastPing(probe.id)).not.toBeNull()
    const reference = await unknownAnswer()

    await ok('probes.setEnabled', { id: probe.id, enabled: false }, admin)
    expect(shape(await send(path), path)).toEqual(reference)
    const failPath = pingPath(probe.heartbeatToken, '/fail')
    expect(shape(await send(failPath), failPath)).toEqual(reference)
    await ok('probes.setEnabled', { id: probe.id, enabled: true }, admin)
    expect((await send(path)).status).toBe(200)
    expect((await monitorOf(probe.id).live())?.state).toBe('up')
    expect((await send(path)).status).toBe(200)
    const lastLedgerPing = await ledgerOf(probe.id).lastPing(probe.id)

    await ok('probes.archive', { id: probe.id }, admin)
    expect(shape(await send(path), path)).toEqual(reference)
    // The ledger's last ping is handed to the monitor, which still shows it.
    expect((await monitorOf(probe.id).live())?.lastPing).toEqual(lastLedgerPing)
    // What the ledger counted before the archive still reaches D1.
    await runDurableObjectAlarm(ledgerOf(probe.id))
    expect(await upCount(probe.id)).toBe(4)
  })

  it('should refuse the old token at once after rotateToken, and record the new one in the ledger', async () => {
    const probe = await createHeartbeat()
    expect((await pingOf(probe)).status).toBe(200)
    expect((await pingOf(probe)).status).toBe(200)
    const rotated = await ok<{ heartbeatToken: string }>('probes.rotateToken', { id: probe.id }, admin)
    const oldPath = pingPath(probe.heartbeatToken)
    expect(shape(await send(oldPath), oldPath)).toEqual(await unknownAnswer())
    const before = await monitorMemory(probe.id)
    expect((await send(pingPath(rotated.heartbeatToken))).status).toBe(200)
    expect(await monitorMemory(probe.id)).toEqual(before)
  })

  it('should count every one of many concurrent pings across probes of one shard', async () => {
    // Probes until three share a shard.
    const byShard = new Map<number, Heartbeat[]>()
    let group: Heartbeat[] = []
    for (let i = 0; i < 60 && group.length < 3; i++) {
      const probe = await createHeartbeat()
      const shard = ledgerShard(probe.id)
      group = [...(byShard.get(shard) ?? []), probe]
      byShard.set(shard, group)
    }
    expect(group).toHaveLength(3)
    for (const probe of group) expect((await pingOf(probe)).status).toBe(200)
    const answers = await Promise.all(Array.from({ length: 90 }, (_, i) => pingOf(group[i % 3] as Heartbeat)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(90)
    const [first] = group
    if (!first) throw new Error('no probe')
    expect(await runDurableObjectAlarm(ledgerOf(first.id))).toBe(true)
    for (const probe of group) {
      expect(await upCount(probe.id)).toBe(31)
      expect(await rawRows(probe.id)).toHaveLength(31)
    }
  })

  it('should keep what D1 refused in the ledger and write it from its next alarm', async () => {
    const probe = await createHeartbeat()
    expect((await pingOf(probe)).status).toBe(200)
    for (let i = 0; i < 3; i++) expect((await pingOf(probe)).status).toBe(200)
    const ledger = ledgerOf(probe.id)
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn((await envOf(ledger)).DB, 'batch').mockRejectedValueOnce(new Error('D1 is unavailable'))
    expect(await runDurableObjectAlarm(ledger)).toBe(true)
    expect(await upCount(probe.id)).toBe(1)
    expect((await pingOf(probe)).status).toBe(200)
    expect(await runDurableObjectAlarm(ledger)).toBe(true)
    expect([await upCount(probe.id), (await rawRows(probe.id)).length]).toEqual([5, 5])
  })

  it('should retry a failed ledger register from the monitor alarm, the pings counted meanwhile by the monitor', async () => {
    const probe = await createHeartbeat()
    const monitor = monitorOf(probe.id)
    const monitorEnv = await envOf(monitor)
    const namespace = monitorEnv.HEARTBEAT_LEDGER
    const realStub = namespace.getByName.bind(namespace)
    vi.spyOn(console, 'error').mockImplementation(() => {})
    // The namespace may be the route's too: only register fails (stubs are made in the caller's request).
    const getByName = vi.spyOn(namespace, 'getByName').mockImplementation((name: string) => {
      const real = realStub(name)
      return {
        register: async () => {
          throw new Error('ledger unavailable')
        },
        ping: (...args: Parameters<typeof real.ping>) => real.ping(...args),
        lastPing: (id: string) => real.lastPing(id),
      } as never
    })
    const startedAt = Date.now()
    const first = await pingOf(probe)
    expect(first.status, first.text).toBe(200)
    expect((await monitor.live())?.state).toBe('up')
    // Still forwarded: the ledger was never told the probe is up.
    expect((await pingOf(probe)).status).toBe(200)
    expect((await monitorMemory(probe.id)).state).toMatchObject({ consecutiveFailures: 0 })
    expect(await ledgerOf(probe.id).lastPing(probe.id)).toBeNull()
    const alarm = await runInDurableObject(monitor, (_, state) => state.storage.getAlarm())
    expect(alarm).toBeLessThanOrEqual(startedAt + 61_000)

    getByName.mockRestore()
    expect(await runDurableObjectAlarm(monitor)).toBe(true)
    const before = await monitorMemory(probe.id)
    expect((await pingOf(probe)).status).toBe(200)
    expect(await monitorMemory(probe.id)).toEqual(before)
    expect(await ledgerOf(probe.id).lastPing(probe.id)).not.toBeNull()
    await runDurableObjectAlarm(ledgerOf(probe.id))
    expect(await upCount(probe.id)).toBe(3)
  })

  it('should refuse an unknown id, a wrong secret, a paused and an archived probe in the ledger, waking no monitor', async () => {
    const [wrong, paused, archived] = await Promise.all([
      createHeartbeat(),
      createHeartbeat(),
      createHeartbeat(),
    ])
    for (const probe of [wrong, paused, archived]) expect((await pingOf(probe)).status).toBe(200)
    await ok('probes.setEnabled', { id: paused.id, enabled: false }, admin)
    await ok('probes.archive', { id: archived.id }, admin)
    const unknownId = crypto.randomUUID()
    const paths = [
      pingPath(`hb_${unknownId}_${randomSecret()}`),
      pingPath(`hb_${unknownId}_${randomSecret()}`, '/fail'),
      pingPath(`hb_${wrong.id}_${randomSecret()}`),
      pingPath(`hb_${wrong.id}_${randomSecret()}`, '/start'),
      pingPath(paused.heartbeatToken),
      pingPath(archived.heartbeatToken, '/0'),
    ]
    // The route's PROBE_MONITOR namespace is the one the objects hold (bindings are shared in one isolate).
    const namespaces = new Set([
      workerEnv.PROBE_MONITOR,
      (await envOf(ledgerOf(wrong.id))).PROBE_MONITOR,
      (await envOf(monitorOf(wrong.id))).PROBE_MONITOR,
    ])
    const woken = [...namespaces].flatMap((namespace) => [
      vi.spyOn(namespace, 'getByName'),
      vi.spyOn(namespace, 'idFromName'),
      vi.spyOn(namespace, 'get'),
    ])
    const reference = await unknownAnswer()
    for (const path of paths) expect(shape(await send(path), path), path).toEqual(reference)
    expect(woken.map((spy) => spy.mock.calls.length)).toEqual(woken.map(() => 0))
  })
})

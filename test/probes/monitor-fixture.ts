import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { and, eq } from 'drizzle-orm'
import { afterEach, vi } from 'vitest'
import type { ProbeMonitor } from '../../durable-objects/probe-monitor'
import { db } from '../../src/db/client'
import { probeResults, probeRollups, probes } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import { randomSecret } from '../../src/lib/encoding'
import { NotifyConfigSchema, PROBE_CONFIG_SCHEMAS, type ProbeType } from '../../src/probes/config'
import { hashHeartbeatSecret } from '../../src/probes/heartbeat/token'
import type { CheckOutcome, MonitorSnapshot, Ping } from '../../src/probes/monitor/api'
import { toSnapshot } from '../../src/probes/rows'

// For test/probes/monitor-*.test.ts. Importing this module registers their afterEach, which restores every
// mock.

export const workerEnv = env as unknown as Env
export const database = db(workerEnv.DB)

interface Fixture {
  snapshot: MonitorSnapshot
  secret: string
  stub: DurableObjectStub<ProbeMonitor>
}

/** A probes row written straight to D1 (the catalogue's side) and handed to its monitor. */
export async function monitoredProbe(
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

export const ping = (fixture: Fixture, fields: Partial<Ping> = {}): Promise<boolean> =>
  fixture.stub.ping({
    secret: fixture.secret,
    signal: 'success',
    exitStatus: null,
    body: '',
    at: Date.now(),
    ...fields,
  })

export function events(probeId: string) {
  return database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'event')))
    .orderBy(probeResults.id)
}

/** Raw rows in D1: none come from a monitor (its raw results stay in its own storage). */
export function rawRows(probeId: string) {
  return database
    .select()
    .from(probeResults)
    .where(and(eq(probeResults.probeId, probeId), eq(probeResults.kind, 'raw')))
}

/** The monitor's own raw results, newest first. */
export const ownRaw = (stub: DurableObjectStub<ProbeMonitor>) =>
  stub.rawResults(0, Number.MAX_SAFE_INTEGER, null)

/** The checks D1's hourly rollups of the probe count. */
export async function hourlyChecks(probeId: string): Promise<number> {
  const rows = await database
    .select()
    .from(probeRollups)
    .where(and(eq(probeRollups.probeId, probeId), eq(probeRollups.granularity, 'hourly')))
  return rows.reduce((total, r) => total + r.up + r.down + r.degraded, 0)
}

export async function catalogue(probeId: string) {
  const [row] = await database.select().from(probes).where(eq(probes.id, probeId))
  return row
}

/** The monitor's own bindings, to watch what it sends (the test's env is another object). */
export function monitorEnv(stub: DurableObjectStub<ProbeMonitor>): Promise<Env> {
  return runInDurableObject(stub, (instance) => (instance as unknown as { env: Env }).env)
}

/** Runs the monitor's alarms until `done` holds (each run stands for the moment it was set for). */
export async function runAlarmsUntil(stub: DurableObjectStub<ProbeMonitor>, done: () => Promise<boolean>) {
  for (let i = 0; i < 10; i++) {
    if (await done()) return
    if (!(await runDurableObjectAlarm(stub))) break
  }
  if (!(await done())) throw new Error('the alarms ran out before the condition held')
}

// Checks a day ahead: no deadline they set is already due, so no alarm runs by itself during a test.
const CHECKS_FROM = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 86_400_000

export const result = (snapshot: MonitorSnapshot, n: number, outcome: CheckOutcome) => ({
  checkId: `${snapshot.id}:${n}`,
  at: CHECKS_FROM + n * 60_000,
  outcome,
  latencyMs: 20,
  detail: outcome === 'down' ? 'HTTP 503' : 'HTTP 200',
})

afterEach(() => {
  vi.restoreAllMocks()
})

import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { HeartbeatLedger } from '../../durable-objects/heartbeat-ledger'
import { db } from '../../src/db/client'
import { probes } from '../../src/db/schema/probes'
import type { Env } from '../../src/env'
import { ledgerFor } from '../../src/probes/heartbeat/ledger-api'
import { monitorSyncTask, syncBehindMonitors } from '../../src/probes/monitor/sync-cron'
import { type Caller, call, ok, send } from '../helpers/http'
import { adminSession } from '../helpers/principals'

// Rotation, pause and archive hold before the answer when the probe's monitor takes the change; when that call
// fails after the D1 commit, the minute sweep configures the monitor again, so the old token stops within a minute.
const workerEnv = env as unknown as Env
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

function createHeartbeat(): Promise<Heartbeat> {
  return ok<Heartbeat>(
    'probes.create',
    {
      name: `sync ${crypto.randomUUID().slice(0, 8)}`,
      type: 'heartbeat',
      targetKind: 'external',
      target: 'nightly job',
    },
    admin,
  )
}

const ping = async (token: string) => (await send(`/api/heartbeat/${token}`)).status

/** Every PROBE_MONITOR namespace the Worker and the objects hold (one isolate may share them). */
async function monitorNamespaces(probeId: string): Promise<Set<Env['PROBE_MONITOR']>> {
  const ledger = ledgerFor(workerEnv, probeId) as DurableObjectStub<HeartbeatLedger>
  const ledgerEnv = await runInDurableObject(ledger, (instance) => (instance as unknown as { env: Env }).env)
  return new Set([workerEnv.PROBE_MONITOR, ledgerEnv.PROBE_MONITOR])
}

/** Makes every monitor's configure fail (the object unreachable) until the returned function is called. */
async function failConfigures(probeId: string): Promise<() => void> {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  const spies = [...(await monitorNamespaces(probeId))].map((namespace) => {
    const real = namespace.getByName.bind(namespace)
    return vi.spyOn(namespace, 'getByName').mockImplementation((name: string) => {
      const stub = real(name) as unknown as Record<string, unknown>
      return new Proxy(stub, {
        get: (target, key) =>
          key === 'configure'
            ? async () => {
                throw new Error('monitor unreachable')
              }
            : Reflect.get(target, key),
      }) as never
    })
  })
  return () => {
    for (const spy of spies) spy.mockRestore()
  }
}

const monitorVersionOf = async (id: string) => {
  const [row] = await db(workerEnv.DB)
    .select({ monitorVersion: probes.monitorVersion, updatedAt: probes.updatedAt })
    .from(probes)
    .where(eq(probes.id, id))
  return row
}

describe('heartbeat changes reach the monitor', () => {
  it('should record the version the monitor confirmed, leaving nothing for the sweep', async () => {
    const probe = await createHeartbeat()
    await ok('probes.rotateToken', { id: probe.id }, admin)
    // Written after the answer (the caller does not wait for the sweep's bookkeeping).
    await vi.waitFor(async () => {
      const row = await monitorVersionOf(probe.id)
      expect(row?.monitorVersion).toBe(row?.updatedAt.getTime())
    })
    await syncBehindMonitors(workerEnv)
    expect(await syncBehindMonitors(workerEnv)).toBe(0)
  })

  it('should refuse the old token within the sweep when the monitor missed a rotation', async () => {
    const probe = await createHeartbeat()
    expect(await ping(probe.heartbeatToken)).toBe(200)
    const restore = await failConfigures(probe.id)
    const rotated = await call('probes.rotateToken', { id: probe.id }, admin)
    restore()
    expect(rotated.status).toBe(500)
    // The commit stands; the monitor and its ledger entry still hold the old hash.
    expect(await ping(probe.heartbeatToken)).toBe(200)
    await monitorSyncTask.run(workerEnv, Date.now())
    expect(await ping(probe.heartbeatToken)).toBe(404)
    const row = await monitorVersionOf(probe.id)
    expect(row?.monitorVersion).toBe(row?.updatedAt.getTime())
  })

  it('should stop the pings within the sweep when the monitor missed a pause or an archive', async () => {
    const [paused, archived] = await Promise.all([createHeartbeat(), createHeartbeat()])
    for (const probe of [paused, archived]) expect(await ping(probe.heartbeatToken)).toBe(200)
    const restore = await failConfigures(paused.id)
    const answers = [
      await call('probes.setEnabled', { id: paused.id, enabled: false }, admin),
      await call('probes.archive', { id: archived.id }, admin),
    ]
    restore()
    expect(answers.map((answer) => answer.status)).toEqual([500, 500])
    expect([await ping(paused.heartbeatToken), await ping(archived.heartbeatToken)]).toEqual([200, 200])
    expect(await syncBehindMonitors(workerEnv)).toBeGreaterThanOrEqual(2)
    expect([await ping(paused.heartbeatToken), await ping(archived.heartbeatToken)]).toEqual([404, 404])
  })
})

import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { verifyServiceSignature } from '../../src/lib/service-signature'
import { captureJobs, runCron } from '../helpers/changelog'
import { type Caller, call, ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { fakeOrigin } from '../helpers/outbound'
import { adminSession, operatorSession } from '../helpers/principals'
import { runScanShards, takeCheckPacks } from '../helpers/probe-scan'
import { type CreatedProbe, type ProbeDetail, probeRecord, STATUS_ORIGIN } from './catalogue-fixture'
import { openWatch } from './watch-stream'

// One probe's whole life through the real routes: the minute cron, the check jobs, the probe's monitor, D1, the
// watch hub and the real queue delivering its signed webhook.
const HOOKS = 'https://hooks.e2e-probes-example.com'
const WEBHOOK_SECRET = 'e2e-webhook-secret-0123456789'

let admin: Caller
let operator: Caller

beforeAll(async () => {
  admin = await adminSession()
  operator = await operatorSession(admin)
})

afterEach(() => {
  vi.restoreAllMocks()
})

/** Runs the minute scan as of `at`, its shards, and then every check job they queued. */
async function scanAndCheck(at: number): Promise<void> {
  const jobs = captureJobs()
  await runCron('* * * * *', at)
  await runScanShards(jobs.sent)
  const packs = takeCheckPacks(jobs.sent)
  jobs.sendBatch.mockRestore()
  for (const pack of packs) expect((await runJob(pack)).acked).toBe(true)
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('monitoring end to end', () => {
  it('should take an http probe from paused to up to down live, with one event per change and one signed alert', async () => {
    let status = 200
    fakeOrigin(STATUS_ORIGIN, () => new Response('all good', { status }))
    const hooks: { body: string; headers: Headers }[] = []
    fakeOrigin(HOOKS, async (request) => {
      hooks.push({ body: await request.text(), headers: request.headers })
      return new Response('thanks')
    })

    const input = {
      name: 'shop health',
      type: 'http',
      targetKind: 'external',
      target: `${STATUS_ORIGIN}/health`,
      config: { failureThreshold: 2 },
      notifyConfig: { webhookUrl: `${HOOKS}/probes`, cooldownSeconds: 0 },
      webhookSecret: WEBHOOK_SECRET,
    }
    expect((await call('probes.create', input, operator)).status).toBe(403)
    const probe = await ok<CreatedProbe>('probes.create', input, admin)
    expect(probe.state).toBe('paused')

    const stream = await openWatch(operator, { targetKind: 'external', intervalMs: 250 })
    const snapshot = await stream.snapshot(2000)
    expect(snapshot.find(({ row }) => row.id === probe.id)?.row.state).toBe('paused')

    const due = (await probeRecord(probe.id))?.nextCheckAt?.getTime() ?? 0
    await scanAndCheck(due + 1000)
    expect((await stream.next(3000))?.row).toMatchObject({ id: probe.id, state: 'up' })
    // Nothing changed, nothing sent.
    await scanAndCheck(due + 61_000)
    expect(await stream.next(800)).toBeNull()

    status = 503
    await scanAndCheck(due + 121_000)
    expect(await stream.next(800)).toBeNull()
    await scanAndCheck(due + 181_000)
    expect((await stream.next(3000))?.row).toMatchObject({ id: probe.id, state: 'down' })
    // A third failure is no new change.
    await scanAndCheck(due + 241_000)
    expect(await stream.next(800)).toBeNull()
    await stream.close()

    const detail = await ok<ProbeDetail>('probes.get', { id: probe.id }, operator)
    expect(detail.state).toBe('down')
    expect(detail.consecutiveFailures).toBe(3)
    expect(detail.events.map((event) => [event.previousState, event.state])).toEqual([
      ['up', 'down'],
      ['paused', 'up'],
    ])

    // The real queue delivers the alert: exactly one, for the down, signed over its raw body.
    await until(
      async () => hooks.length,
      (count) => count >= 1,
    )
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(hooks).toHaveLength(1)
    const [hook] = hooks
    expect(await verifyServiceSignature(hook?.body ?? '', hook?.headers, WEBHOOK_SECRET)).toEqual({
      ok: true,
    })
    expect(JSON.parse(hook?.body ?? '{}')).toMatchObject({
      event: 'probe.state_changed',
      probe: { id: probe.id, name: 'shop health' },
      previousState: 'up',
      state: 'down',
      result: { outcome: 'down', detail: expect.stringContaining('503') },
    })
    const delivered = await until(
      () => ok<ProbeDetail>('probes.get', { id: probe.id }, operator),
      (read) => (read.deliveries as { status: string }[]).some((d) => d.status === 'delivered'),
    )
    expect(delivered.deliveries).toEqual([
      expect.objectContaining({ target: 'webhook', status: 'delivered', event: 'up->down', attempts: 1 }),
    ])
    // About 4 s are deliberate waits (three quiet windows and the pause before counting the hooks).
  }, 20_000)
})

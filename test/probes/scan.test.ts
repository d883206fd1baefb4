import { runInDurableObject } from 'cloudflare:test'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Env } from '../../src/env'
import type { JobMessage } from '../../src/jobs/messages'
import type { ProbeNotifyMessage } from '../../src/notifications/probes/jobs'
import { fanOutScan } from '../../src/probes/checks/scan-cron'
import { scanShard } from '../../src/probes/checks/scan-shard'
import { captureJobs, runCron } from '../helpers/changelog'
import type { Caller } from '../helpers/http'
import { ok } from '../helpers/http'
import { runJob } from '../helpers/jobs'
import { fakeOrigin, outboundRequests } from '../helpers/outbound'
import { adminSession } from '../helpers/principals'
import { runScanShards, scanAt } from '../helpers/probe-scan'
import { once } from '../maintenance/fixture'
import { createStatusPage } from '../status-pages/fixture'
import { createProbe, type ProbeDetail, probeRecord, STATUS_ORIGIN, workerEnv } from './catalogue-fixture'

let admin: Caller
let jobs: ReturnType<typeof captureJobs>

beforeAll(async () => {
  admin = await adminSession()
})

beforeEach(() => {
  jobs = captureJobs()
  // A sub-minute probe's monitor checks at once, from its own alarm.
  fakeOrigin(STATUS_ORIGIN, () => new Response('all good'))
})

type ChecksMessage = Extract<JobMessage, { type: 'probe.checks' }>
type ScheduledCheck = ChecksMessage['checks'][number]
const packs = () => jobs.sent.filter((m): m is ChecksMessage => m.type === 'probe.checks')
const checks = () => packs().flatMap((pack) => pack.checks)
const checked = () => checks().map((m) => m.probeId)
/** A pack of the given checks, as a shard of the scan at `scanAt` queues it. */
const pack = (scanAt: number, ...slots: ScheduledCheck[]): ChecksMessage => ({
  type: 'probe.checks',
  scanAt,
  checks: slots,
})
const MINUTE = 60_000

describe('the minute scan', () => {
  it('should run on the minute cron and queue a check of each due probe, scheduled at its due time', async () => {
    const probe = await createProbe(admin)
    const due = (await probeRecord(probe.id))?.nextCheckAt?.getTime() ?? 0
    await runCron('* * * * *', due + 1000)
    await runScanShards(jobs.sent)
    expect(checks().filter((m) => m.probeId === probe.id)).toEqual([{ probeId: probe.id, scheduledAt: due }])
    expect((await probeRecord(probe.id))?.nextCheckAt?.getTime()).toBe(due + MINUTE)
    await scanAt(workerEnv, jobs.sent, due + 2000)
    expect(checked().filter((id) => id === probe.id)).toHaveLength(1)
  })

  it('should schedule a probe far behind from now, never in the past', async () => {
    const probe = await createProbe(admin, { config: { intervalSeconds: 300 } })
    const due = (await probeRecord(probe.id))?.nextCheckAt?.getTime() ?? 0
    const now = due + 3 * 3_600_000
    await scanAt(workerEnv, jobs.sent, now)
    expect(checks().find((m) => m.probeId === probe.id)?.scheduledAt).toBe(now)
    expect((await probeRecord(probe.id))?.nextCheckAt?.getTime()).toBe(now + 300_000)
  })

  it('should leave paused, archived, heartbeat and sub-minute probes alone, and scan a resumed one', async () => {
    const paused = await createProbe(admin)
    await ok('probes.setEnabled', { id: paused.id, enabled: false }, admin)
    const archived = await createProbe(admin)
    await ok('probes.archive', { id: archived.id }, admin)
    const heartbeat = await createProbe(admin, { type: 'heartbeat', target: 'scan job' })
    const fast = await createProbe(admin, { config: { intervalSeconds: 20 } })
    await scanAt(workerEnv, jobs.sent, Date.now() + 24 * 3_600_000)
    for (const probe of [paused, archived, heartbeat, fast]) expect(checked()).not.toContain(probe.id)
    await ok('probes.setEnabled', { id: paused.id, enabled: true }, admin)
    await scanAt(workerEnv, jobs.sent, Date.now() + 25 * 3_600_000)
    expect(checked()).toContain(paused.id)
  })

  it('should read about as many rows as there are due probes, not all probes, and send batches of 100', async () => {
    const now = Date.now() + 48 * 3_600_000
    // Everything the other tests left is due by `now`; scan it away first.
    await scanAt(workerEnv, jobs.sent, now)
    const seeded = await workerEnv.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < 10000)
       insert into probes (id, name, type, target_kind, target, config, notify_config, state, enabled,
         consecutive_failures, next_check_at, created_at, updated_at)
       select 'seed-' || i, 'seed ' || i, 'http', 'external', 'https://seed.probes-example.com/',
         '{"intervalSeconds":60}', '{}', 'up', 1, 0,
         case when i % 100 = 0 then ?1 - i else ?1 + 3600000 end, ?1, ?1 from n`,
    )
      .bind(now)
      .run()
    expect(seeded.meta.changes).toBe(10_000)
    jobs.sent.length = 0
    jobs.sendBatch.mockClear()
    try {
      const fanOut = await fanOutScan(workerEnv, now)
      expect(fanOut).toMatchObject({ due: 100, shards: 1 })
      // The count reads the due probes' index entries.
      expect(fanOut.rowsRead).toBeLessThanOrEqual(100 + 5)
      const scan = await scanShard(workerEnv, now)
      expect(scan.queued).toBe(100)
      expect(new Set(checked())).toEqual(
        new Set(Array.from({ length: 100 }, (_, i) => `seed-${(i + 1) * 100}`)),
      )
      for (const [batch] of jobs.sendBatch.mock.calls) expect([...batch].length).toBeLessThanOrEqual(100)
      // Measured: 6 rows per due probe (its partial-index entry, the row read and updated, the index entry
      // moved), plus one; the 9,900 probes not due cost nothing.
      expect(scan.rowsRead).toBeGreaterThanOrEqual(100)
      expect(scan.rowsRead).toBeLessThanOrEqual(7 * 100)
      const again = await fanOutScan(workerEnv, now)
      expect(again).toEqual({ due: 0, shards: 0, rowsRead: again.rowsRead })
      expect(again.rowsRead).toBeLessThanOrEqual(5)
      expect((await scanShard(workerEnv, now)).queued).toBe(0)
    } finally {
      await workerEnv.DB.prepare(`delete from probes where id like 'seed-%'`).run()
    }
  })
})

describe('the probe.checks and probe.check jobs', () => {
  it('should run the check and change the state once when the same message runs twice', async () => {
    const probe = await createProbe(admin)
    const due = (await probeRecord(probe.id))?.nextCheckAt?.getTime() ?? 0
    await scanAt(workerEnv, jobs.sent, due)
    const message = packs().find((m) => m.checks.some((check) => check.probeId === probe.id))
    if (!message) throw new Error('the scan queued no check')
    expect((await runJob(message)).acked).toBe(true)
    expect((await runJob(message)).acked).toBe(true)
    const detail = await ok<ProbeDetail>('probes.get', { id: probe.id }, admin)
    expect(detail.state).toBe('up')
    expect(detail.events.map((e) => [e.previousState, e.state])).toEqual([['paused', 'up']])
    expect((await probeRecord(probe.id))?.state).toBe('up')
  })

  it('should count a failure once per scheduled check, however often its message runs', async () => {
    fakeOrigin(STATUS_ORIGIN, () => new Response('down for maintenance', { status: 503 }))
    const probe = await createProbe(admin, { config: { failureThreshold: 2 } })
    const due = (await probeRecord(probe.id))?.nextCheckAt?.getTime() ?? 0
    const first = { type: 'probe.check' as const, probeId: probe.id, scheduledAt: due }
    for (let i = 0; i < 3; i++) expect((await runJob(first)).acked).toBe(true)
    const once = await ok<ProbeDetail>('probes.get', { id: probe.id }, admin)
    expect(once.consecutiveFailures).toBe(1)
    expect(once.state).not.toBe('down')
    await runJob({ ...first, scheduledAt: due + MINUTE })
    const twice = await ok<ProbeDetail>('probes.get', { id: probe.id }, admin)
    expect(twice).toMatchObject({ state: 'down', consecutiveFailures: 2 })
    expect(twice.events.filter((e) => e.state === 'down')).toHaveLength(1)
  })

  it('should run a check its job reaches after the next slot time, and drop it once a later scan took that slot', async () => {
    // The scan runs at minute boundaries, so a probe due just after one is scanned almost a minute late; a queue
    // that takes a few seconds more must not make every one of its checks look superseded.
    const probe = await createProbe(admin)
    const scanTime = Date.now()
    const due = scanTime - MINUTE + 500
    await workerEnv.DB.prepare('update probes set next_check_at = ?1 where id = ?2').bind(due, probe.id).run()
    await scanAt(workerEnv, jobs.sent, scanTime)
    const slot = checks().find((m) => m.probeId === probe.id)
    expect(slot).toEqual({ probeId: probe.id, scheduledAt: due })
    const late = pack(scanTime, { probeId: probe.id, scheduledAt: due })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(Date.now() - due).toBeGreaterThan(MINUTE)
    expect((await runJob(late)).acked).toBe(true)
    expect((await ok<ProbeDetail>('probes.get', { id: probe.id }, admin)).state).toBe('up')

    await scanAt(workerEnv, jobs.sent, due + 2 * MINUTE)
    const requests = outboundRequests().filter((r) => r.url.startsWith(STATUS_ORIGIN)).length
    expect((await runJob(late)).acked).toBe(true)
    expect((await runJob({ type: 'probe.check', probeId: probe.id, scheduledAt: due })).acked).toBe(true)
    expect(outboundRequests().filter((r) => r.url.startsWith(STATUS_ORIGIN))).toHaveLength(requests)
  })

  it('should skip a paused or archived probe without checking it', async () => {
    const paused = await createProbe(admin)
    const archived = await createProbe(admin)
    await ok('probes.setEnabled', { id: paused.id, enabled: false }, admin)
    await ok('probes.archive', { id: archived.id }, admin)
    for (const probe of [paused, archived]) {
      const run = await runJob({ type: 'probe.check', probeId: probe.id, scheduledAt: Date.now() })
      expect(run.acked).toBe(true)
      expect((await ok<ProbeDetail>('probes.get', { id: probe.id }, admin)).state).toBe('paused')
    }
    expect(outboundRequests().filter((r) => r.url.startsWith(STATUS_ORIGIN))).toEqual([])
  })

  it('should check each slot of a pack that is still due, skipping paused, archived, deleted and superseded probes', async () => {
    const [a, b, paused, archived, superseded] = await Promise.all(
      Array.from({ length: 5 }, () => createProbe(admin)),
    )
    if (!a || !b || !paused || !archived || !superseded) throw new Error('probes not created')
    await ok('probes.setEnabled', { id: paused.id, enabled: false }, admin)
    await ok('probes.archive', { id: archived.id }, admin)
    const scanTime = Date.now()
    // A later scan took the superseded probe's next slot already.
    await workerEnv.DB.prepare('update probes set next_check_at = ?1 where id = ?2')
      .bind(scanTime + 3 * MINUTE, superseded.id)
      .run()
    const slots = [a, b, paused, archived, superseded].map((p) => ({ probeId: p.id, scheduledAt: scanTime }))
    expect(
      (await runJob(pack(scanTime, ...slots, { probeId: crypto.randomUUID(), scheduledAt: scanTime }))).acked,
    ).toBe(true)
    const states = await Promise.all(
      [a, b, paused, archived, superseded].map(
        async (p) => (await ok<ProbeDetail>('probes.get', { id: p.id }, admin)).state,
      ),
    )
    expect(states).toEqual(['up', 'up', 'paused', 'paused', 'paused'])
    expect(outboundRequests().filter((r) => r.url.startsWith(STATUS_ORIGIN))).toHaveLength(2)
    expect(jobs.sent).toEqual([])
  })

  it('should send a check whose monitor failed on as its own probe.check, without checking the others again', async () => {
    const [failing, fine] = await Promise.all([createProbe(admin), createProbe(admin)])
    if (!failing || !fine) throw new Error('probes not created')
    const scanTime = Date.now()
    const monitors = workerEnv.PROBE_MONITOR
    const getByName = monitors.getByName.bind(monitors)
    const spy = vi.spyOn(monitors, 'getByName').mockImplementation((name) => {
      if (name !== failing.id) return getByName(name)
      return { applyResult: () => Promise.reject(new Error('the monitor is unreachable')) } as never
    })
    const slots = [failing, fine].map((p) => ({ probeId: p.id, scheduledAt: scanTime }))
    try {
      expect((await runJob(pack(scanTime, ...slots))).acked).toBe(true)
    } finally {
      spy.mockRestore()
    }
    expect(jobs.sent).toEqual([{ type: 'probe.check', probeId: failing.id, scheduledAt: scanTime }])
    expect((await ok<ProbeDetail>('probes.get', { id: fine.id }, admin)).state).toBe('up')
    expect((await ok<ProbeDetail>('probes.get', { id: failing.id }, admin)).state).toBe('paused')
    const [resent] = jobs.sent
    if (!resent) throw new Error('nothing was sent on')
    expect((await runJob(resent)).acked).toBe(true)
    expect((await ok<ProbeDetail>('probes.get', { id: failing.id }, admin)).state).toBe('up')
    // Each probe's target was checked once by the pack, and the failing one once more by its own job.
    expect(outboundRequests().filter((r) => r.url.startsWith(STATUS_ORIGIN))).toHaveLength(3)
  })

  it('should hand each monitor the maintenance windows the pack read, naming the probe or through a status page', async () => {
    fakeOrigin(STATUS_ORIGIN, () => new Response('down for maintenance', { status: 503 }))
    const notify = { webhookUrl: 'https://hooks.probes-example.com/scan', cooldownSeconds: 0 }
    const [named, listed] = await Promise.all(
      [0, 1].map(() =>
        createProbe(admin, {
          config: { failureThreshold: 1 },
          notifyConfig: notify,
          webhookSecret: 'scan-window-webhook-secret-0123',
        }),
      ),
    )
    if (!named || !listed) throw new Error('probes not created')
    const page = await createStatusPage(admin, {
      groups: [{ name: 'Web', probes: [{ probeId: listed.id, displayName: 'Website' }] }],
    })
    // Written straight to D1, so no monitor is told: each still holds the windows it read a moment ago (none).
    const now = Date.now()
    const windowRow = (id: string) =>
      workerEnv.DB.prepare(
        `insert into maintenance_windows (id, title, schedule, ends_at, created_at, updated_at)
         values (?1, 'Upgrade', ?2, ?3, ?4, ?4)`,
      ).bind(id, JSON.stringify(once(now - MINUTE, 1)), now + 59 * MINUTE, now)
    const [byProbe, byPage] = [crypto.randomUUID(), crypto.randomUUID()]
    await workerEnv.DB.batch([
      windowRow(byProbe),
      windowRow(byPage),
      workerEnv.DB.prepare('insert into maintenance_window_probes values (?1, ?2, 0)').bind(
        byProbe,
        named.id,
      ),
      workerEnv.DB.prepare('insert into maintenance_window_status_pages values (?1, ?2, 0)').bind(
        byPage,
        page.id,
      ),
    ])
    const sent: ProbeNotifyMessage[] = []
    const spies: { mockRestore(): void }[] = []
    for (const probe of [named, listed]) {
      const stub = workerEnv.PROBE_MONITOR.getByName(probe.id)
      const monitorEnv = await runInDurableObject(
        stub,
        (instance) => (instance as unknown as { env: Env }).env,
      )
      const spy = vi.spyOn(monitorEnv.JOBS, 'sendBatch').mockImplementation(async (messages) => {
        for (const message of messages) sent.push(message.body as ProbeNotifyMessage)
        return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } }
      })
      spies.push(spy)
    }
    try {
      const slots = [named, listed].map((p) => ({ probeId: p.id, scheduledAt: now }))
      expect((await runJob(pack(now, ...slots))).acked).toBe(true)
    } finally {
      for (const spy of spies) spy.mockRestore()
    }
    for (const probe of [named, listed])
      expect((await ok<ProbeDetail>('probes.get', { id: probe.id }, admin)).state).toBe('down')
    // Both went down under cover: their alerts are withheld, none announced.
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.filter((m) => !m.withheld)).toEqual([])
    expect(new Set(sent.map((m) => m.probeId))).toEqual(new Set([named.id, listed.id]))
  })
})

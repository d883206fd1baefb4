import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ORPHAN_AFTER_MS } from '../src/dns-servers/sync/sweep-cron'
import type { Env } from '../src/env'
import worker from '../src/index'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, runZoneSync, type SentJob } from './dns-servers/run-job'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

interface Zone {
  id: string
  boxes: { nodeId: string; state: string }[]
}

const workerEnv = env as unknown as Env
const boxes = [
  new FakePowerDns('https://pdns-a.sweep.test', 'sweep-key-a'),
  new FakePowerDns('https://pdns-b.sweep.test', 'sweep-key-b'),
]
const [boxA, boxB] = boxes as [FakePowerDns, FakePowerDns]
let admin: Caller
let sent: SentJob[]
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  sent = captureJobs()
  admin = await adminSession()
  if (enrolled) return
  await enrollBoxes(admin, 'sweep', boxes)
  enrolled = true
})

async function sweep(at: number): Promise<void> {
  const ctx = createExecutionContext()
  await worker.scheduled(
    createScheduledController({ scheduledTime: at, cron: '*/10 * * * *' }),
    workerEnv,
    ctx,
  )
  await waitOnExecutionContext(ctx)
}

describe('zone-sync sweep', () => {
  it('should answer a change that committed even when the queue refuses the retry job', async () => {
    boxB.down = true
    vi.spyOn(workerEnv.JOBS, 'sendBatch').mockRejectedValueOnce(new Error('queue unavailable'))
    const zone = await ok<Zone>(
      'dnsServers.zones.create',
      { name: `lost-${crypto.randomUUID().slice(0, 8)}.test` },
      admin,
    )
    expect(zone.boxes.map((b) => b.state).sort()).toEqual(['failed', 'synced'])
  })

  it('should queue again only unsynced boxes whose job chain has ended', async () => {
    boxB.down = true
    const zone = await ok<Zone>(
      'dnsServers.zones.create',
      { name: `orphan-${crypto.randomUUID().slice(0, 8)}.test` },
      admin,
    )
    const behind = zone.boxes.find((b) => b.state !== 'synced')
    expect(behind).toBeDefined()
    sent.length = 0

    await sweep(Date.now())
    expect(sent.filter((job) => job.body.type === 'dns.zone-sync')).toEqual([])

    await sweep(Date.now() + ORPHAN_AFTER_MS + 60_000)
    const queued = sent.filter((job) => job.body.type === 'dns.zone-sync').map((job) => job.body)
    expect(queued).toContainEqual({ type: 'dns.zone-sync', zoneId: zone.id, nodeId: behind?.nodeId })
    expect(queued.every((job) => 'nodeId' in job && job.nodeId === behind?.nodeId)).toBe(true)
  })

  it('should leave every box of a write behind for the sweep when the commit after it fails', async () => {
    const zone = await ok<Zone & { name: string }>(
      'dnsServers.zones.create',
      { name: `commit-${crypto.randomUUID().slice(0, 8)}.test` },
      admin,
    )
    const [nodeA, nodeB] = zone.boxes.map((b) => b.nodeId)
    const name = `lost.${zone.name}`
    boxB.down = true
    vi.spyOn(workerEnv.DB, 'batch').mockRejectedValueOnce(new Error('D1 is unavailable'))
    const write = await call(
      'dnsServers.zones.upsertRecord',
      { id: zone.id, name, type: 'A', ttl: 60, values: ['192.0.2.8'] },
      admin,
    )
    expect(write.status, write.text).toBe(500)
    boxB.down = false
    expect(boxA.lookup(name, 'A')).toEqual(['192.0.2.8'])
    expect(boxB.lookup(name, 'A')).toEqual([])
    const left = await ok<Zone>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(left.boxes.map((b) => b.state)).toEqual(['pending', 'pending'])

    sent.length = 0
    await sweep(Date.now() + ORPHAN_AFTER_MS + 60_000)
    const queued = sent.filter((job) => job.body.type === 'dns.zone-sync').map((job) => job.body)
    expect(queued).toContainEqual({ type: 'dns.zone-sync', zoneId: zone.id, nodeId: nodeA })
    expect(queued).toContainEqual({ type: 'dns.zone-sync', zoneId: zone.id, nodeId: nodeB })
    // With no box synced, the first job makes its box the reference and the other copies from it.
    expect(await runZoneSync(zone.id, nodeA as string)).toEqual({ acked: true, retryDelay: null })
    expect(await runZoneSync(zone.id, nodeB as string)).toEqual({ acked: true, retryDelay: null })
    expect(boxB.lookup(name, 'A')).toEqual(['192.0.2.8'])
    const after = await ok<Zone>('dnsServers.zones.get', { id: zone.id }, admin)
    expect(after.boxes.map((b) => b.state)).toEqual(['synced', 'synced'])
  })
})

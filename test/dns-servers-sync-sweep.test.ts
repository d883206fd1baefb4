import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ORPHAN_AFTER_MS } from '../src/dns-servers/sync-sweep-cron'
import type { Env } from '../src/env'
import worker from '../src/index'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

interface Zone {
  id: string
  boxes: { nodeId: string; state: string }[]
}

const workerEnv = env as unknown as Env
const boxes = [
  new FakePowerDns('http://pdns-a.sweep.test:8081', 'sweep-key-a'),
  new FakePowerDns('http://pdns-b.sweep.test:8081', 'sweep-key-b'),
]
const [, boxB] = boxes as [FakePowerDns, FakePowerDns]
let admin: Caller
let sent: SentJob[]
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) {
    box.down = false
    box.install()
  }
  sent = captureJobs()
  admin = await adminSession()
  if (enrolled) return
  for (const [i, box] of boxes.entries()) {
    await ok(
      'dnsServers.nameservers.enroll',
      {
        name: `sweep-ns${i + 1}`,
        hostname: `ns${i + 1}.sweep-panel.test`,
        publicIpv4: `192.0.2.${i + 1}`,
        agentUrl: `https://agent${i + 1}.sweep.test`,
        agentSecret: 'agent-secret-0123456789',
        powerDns: { apiUrl: box.apiUrl, apiKey: box.apiKey },
      },
      admin,
    )
  }
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
})

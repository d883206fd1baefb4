import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Env } from '../src/env'
import worker from '../src/index'
import { runKey } from '../src/jobs/failed-jobs'
import type { JobMessage, QueueMessage } from '../src/jobs/messages'
import { enrollBoxes } from './dns-servers/enroll'
import type { SentJob } from './dns-servers/run-job'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, ok } from './helpers/http'
import { deliverOps, opsInbox } from './helpers/notifications'
import { interceptOutbound } from './helpers/outbound'
import { adminSession } from './helpers/principals'

// A job out of attempts is announced through the operational setting, and its retry succeeding sends the all-clear.

const workerEnv = env as unknown as Env
const boxes = [
  new FakePowerDns('https://pdns-a.dead-notify.test', 'dead-key-a'),
  new FakePowerDns('https://pdns-b.dead-notify.test', 'dead-key-b'),
]
const [, boxB] = boxes as [FakePowerDns, FakePowerDns]
let admin: Caller
let sent: SentJob[]

async function deliver(id: string, body: QueueMessage, attempts: number): Promise<void> {
  const batch = createMessageBatch<QueueMessage>('panel-jobs', [
    { id, timestamp: new Date(), attempts, body },
  ])
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, QueueMessage> = worker
  await handler.queue?.(batch, workerEnv, ctx)
  await getQueueResult(batch, ctx)
}

beforeAll(async () => {
  admin = await adminSession()
  for (const box of boxes) box.reset().install()
  await enrollBoxes(admin, 'dead-notify', boxes)
})

beforeEach(() => {
  interceptOutbound()
  for (const box of boxes) box.reset().install()
  sent = []
  vi.spyOn(workerEnv.JOBS, 'sendBatch').mockImplementation(async (messages) => {
    for (const message of messages) sent.push({ body: message.body as JobMessage, delaySeconds: 0 })
    return { metadata: { metrics: { backlogCount: sent.length, backlogBytes: 0 } } }
  })
})

describe('a dead-lettered job is announced', () => {
  it('should notify once when a job runs out of attempts and send the all-clear when its retry succeeds', async () => {
    boxB.down = true
    const zone = await ok<{ id: string; boxes: { nodeId: string; state: string }[] }>(
      'dnsServers.zones.create',
      { name: `dead-${crypto.randomUUID().slice(0, 8)}.test` },
      admin,
    )
    const nodeId = zone.boxes.find((box) => box.state !== 'synced')?.nodeId ?? ''
    const body: JobMessage = { type: 'dns.zone-sync', zoneId: zone.id, nodeId }
    const id = runKey(body, '')
    const inbox = await opsInbox(admin)
    sent.length = 0

    await deliver(`dead-${crypto.randomUUID()}`, body, 18)
    const raised = await deliverOps(sent, inbox)
    expect(raised).toHaveLength(1)
    expect(raised[0]).toMatchObject({
      event: 'operational.raised',
      kind: 'job.dead-lettered',
      key: `job:${id}`,
    })
    expect(raised[0]?.detail).toMatch(/connection refused by https:\/\/pdns-b\.dead-notify\.test/)
    expect(raised[0]?.link).toMatch(/\/jobs\?state=dead$/)

    // The dead-letter queue receiving the same run announces nothing more.
    await deliver(`dlq-${crypto.randomUUID()}`, body, 18)
    expect(await deliverOps(sent, inbox)).toEqual([])

    boxB.down = false
    await ok('jobs.retry', { id }, admin)
    const retried = sent.find((job) => (job.body as QueueMessage).type === 'jobs.retried')
    if (!retried) throw new Error('jobs.retry sent nothing')
    sent.splice(sent.indexOf(retried), 1)
    await deliver(`resent-${crypto.randomUUID()}`, retried.body, 1)
    const resolved = await deliverOps(sent, inbox)
    expect(resolved).toHaveLength(1)
    expect(resolved[0]).toMatchObject({ event: 'operational.resolved', key: `job:${id}` })
  })
})

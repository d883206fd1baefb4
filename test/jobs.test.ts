import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { STALLED_AFTER_MS } from '../src/changelog/delivery-sweep-cron'
import { DELIVERY_ATTEMPTS } from '../src/changelog/jobs'
import type { Env } from '../src/env'
import worker from '../src/index'
import { runKey } from '../src/jobs/failed-jobs'
import type { JobMessage, QueueMessage } from '../src/jobs/messages'
import { SUCCEEDED_RETENTION_MS } from '../src/jobs/prune-cron'
import { siteWithToken } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { FakePowerDns } from './fakes/powerdns'
import { publishRelease, runCron } from './helpers/changelog'
import { type Caller, call, ok } from './helpers/http'
import { fakeOrigin, interceptOutbound } from './helpers/outbound'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'

interface Job {
  id: string
  kind: string
  target: string
  targetKind: string
  targetId: string
  state: 'retrying' | 'dead' | 'retried' | 'succeeded'
  attempts: number
  retries: number
  lastError: string | null
  firstAttemptAt: string
  lastAttemptAt: string
  deadLetteredAt: string | null
}
interface JobPage {
  jobs: Job[]
  nextCursor: string | null
}

const workerEnv = env as unknown as Env
const boxes = [
  new FakePowerDns('https://pdns-a.jobs.test', 'jobs-key-a'),
  new FakePowerDns('https://pdns-b.jobs.test', 'jobs-key-b'),
]
const [, boxB] = boxes as [FakePowerDns, FakePowerDns]
const HOOKS = 'https://hooks.jobs.test'
let admin: Caller
let sent: QueueMessage[]
let versions = 0

/** Delivers one message to the Worker's real queue handler on `queue`, as the Queue would, with the given id. */
async function deliver(
  queue: 'panel-jobs' | 'panel-jobs-dlq',
  id: string,
  body: QueueMessage,
  attempts: number,
): Promise<{ acked: boolean; retried: boolean }> {
  const batch = createMessageBatch<QueueMessage>(queue, [{ id, timestamp: new Date(), attempts, body }])
  const ctx = createExecutionContext()
  const handler: ExportedHandler<Env, QueueMessage> = worker
  await handler.queue?.(batch, workerEnv, ctx)
  const result = await getQueueResult(batch, ctx)
  return {
    acked: result.explicitAcks.includes(id),
    retried: result.retryMessages.some((m) => m.msgId === id),
  }
}

/** The message jobs.retry sent. */
function resent(): QueueMessage {
  const message = sent.find((body) => body.type === 'jobs.retried')
  if (!message) throw new Error('jobs.retry sent nothing')
  return message
}

async function jobsList(input: Record<string, unknown> = {}, caller = admin): Promise<JobPage> {
  return ok<JobPage>('jobs.list', input, caller)
}

async function jobById(id: string): Promise<Job | undefined> {
  const page = await jobsList({ limit: 500 })
  return page.jobs.find((job) => job.id === id)
}

/** A zone whose second box is down, so its zone-sync job for that box fails with the box's own error. */
async function zoneBehindOnB(): Promise<{ zoneId: string; nodeId: string; name: string }> {
  boxB.down = true
  const name = `jobs-${crypto.randomUUID().slice(0, 8)}.test`
  const zone = await ok<{ id: string; boxes: { nodeId: string; state: string }[] }>(
    'dnsServers.zones.create',
    { name },
    admin,
  )
  const behind = zone.boxes.find((box) => box.state !== 'synced')
  if (!behind) throw new Error('expected box B to fall behind')
  // Its own zone-sync chain is not run here: each test delivers the messages it needs.
  sent.length = 0
  return { zoneId: zone.id, nodeId: behind.nodeId, name }
}

beforeAll(async () => {
  admin = await adminSession()
  for (const box of boxes) box.reset().install()
  await enrollBoxes(admin, 'jobs', boxes)
})

beforeEach(() => {
  interceptOutbound()
  for (const box of boxes) box.reset().install()
  sent = []
  vi.spyOn(workerEnv.JOBS, 'sendBatch').mockImplementation(async (messages) => {
    for (const message of messages) sent.push(message.body)
    return { metadata: { metrics: { backlogCount: sent.length, backlogBytes: 0 } } }
  })
})

describe('failed jobs are recorded', () => {
  it('should show a zone-sync while it retries and record it dead with the box error after the last attempt', async () => {
    const { zoneId, nodeId, name } = await zoneBehindOnB()
    const body: JobMessage = { type: 'dns.zone-sync', zoneId, nodeId }
    const messageId = `exhaust-${crypto.randomUUID()}`
    // One row per zone on a box, whichever chain of zone-syncs failed.
    const id = runKey(body, messageId)
    expect(id).toBe(`dns.zone-sync:${zoneId}:${nodeId}`)

    expect(await deliver('panel-jobs', messageId, body, 1)).toEqual({ acked: false, retried: true })
    const retrying = await jobById(id)
    expect(retrying).toMatchObject({
      kind: 'dns.zone-sync',
      state: 'retrying',
      attempts: 1,
      targetKind: 'zone-box',
      targetId: `${zoneId}:${nodeId}`,
      target: `${name} on ns2.jobs-panel.test`,
    })
    expect(retrying?.lastError).toMatch(/connection refused by https:\/\/pdns-b\.jobs\.test/)

    for (let attempt = 2; attempt <= 18; attempt++) await deliver('panel-jobs', messageId, body, attempt)
    const dead = await jobById(id)
    expect(dead).toMatchObject({ state: 'dead', attempts: 18, deadLetteredAt: null })
    expect(dead?.lastError).toMatch(/connection refused by https:\/\/pdns-b\.jobs\.test/)
    expect(Date.parse(dead?.firstAttemptAt ?? '')).toBeLessThanOrEqual(Date.parse(dead?.lastAttemptAt ?? ''))

    // The Queue then moves it to the dead-letter queue, which may deliver it twice: still one row.
    expect(await deliver('panel-jobs-dlq', messageId, body, 1)).toEqual({ acked: true, retried: false })
    expect(await deliver('panel-jobs-dlq', messageId, body, 2)).toEqual({ acked: true, retried: false })
    const rows = (await jobsList({ limit: 500 })).jobs.filter((job) => job.id === id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ state: 'dead', attempts: 18 })
    expect(rows[0]?.deadLetteredAt).not.toBeNull()
    expect(rows[0]?.lastError).toMatch(/connection refused/)
  })

  it('should record a dead letter it never saw fail once, however often it arrives', async () => {
    const id = `dlq-${crypto.randomUUID()}`
    const body: JobMessage = { type: 'probe.check', probeId: crypto.randomUUID(), scheduledAt: Date.now() }
    await deliver('panel-jobs-dlq', id, body, 1)
    await deliver('panel-jobs-dlq', id, body, 1)
    const rows = (await jobsList({ kind: 'probe.check', limit: 500 })).jobs.filter((job) => job.id === id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ state: 'dead', attempts: 18, targetKind: 'probe' })
    expect(rows[0]?.lastError).toMatch(/dead-letter queue/)
  })

  it('should mark a run that failed and then succeeded on its own as succeeded', async () => {
    const { zoneId, nodeId } = await zoneBehindOnB()
    const body: JobMessage = { type: 'dns.zone-sync', zoneId, nodeId }
    const messageId = `recovers-${crypto.randomUUID()}`
    const id = runKey(body, messageId)
    await deliver('panel-jobs', messageId, body, 1)
    boxB.down = false
    expect(await deliver('panel-jobs', messageId, body, 2)).toEqual({ acked: true, retried: false })
    expect(await jobById(id)).toMatchObject({ state: 'succeeded', attempts: 1 })
  })

  it('should record nothing for a job that succeeds or merely waits', async () => {
    const before = (await jobsList({ limit: 500 })).jobs.length
    const { zoneId, nodeId } = await zoneBehindOnB()
    boxB.down = false
    await deliver('panel-jobs', `fine-${crypto.randomUUID()}`, { type: 'dns.zone-sync', zoneId, nodeId }, 1)
    expect((await jobsList({ limit: 500 })).jobs).toHaveLength(before)
  })
})

describe('jobs.retry', () => {
  it('should send a dead zone-sync again at once, audited, and show it succeeded once the box caught up', async () => {
    const { zoneId, nodeId } = await zoneBehindOnB()
    const body: JobMessage = { type: 'dns.zone-sync', zoneId, nodeId }
    const id = runKey(body, '')
    await deliver('panel-jobs', `box-${crypto.randomUUID()}`, body, 18)
    expect(await jobById(id)).toMatchObject({ state: 'dead' })

    boxB.down = false
    const retried = await ok<Job>('jobs.retry', { id }, admin)
    expect(retried).toMatchObject({ id, state: 'retried', retries: 1 })
    expect(sent).toEqual([{ type: 'jobs.retried', jobId: id, job: body }])

    const again = await call<{ code: string; detail: string }>('jobs.retry', { id }, admin)
    expect(again.status, again.text).toBe(409)
    expect(again.body.detail).toMatch(/already sent again/)

    const message = resent()
    expect(await deliver('panel-jobs', `resent-${crypto.randomUUID()}`, message, 1)).toEqual({
      acked: true,
      retried: false,
    })
    expect(await jobById(id)).toMatchObject({ state: 'succeeded', retries: 1 })
    const zone = await ok<{ boxes: { nodeId: string; state: string }[] }>(
      'dnsServers.zones.get',
      { id: zoneId },
      admin,
    )
    expect(zone.boxes.find((box) => box.nodeId === nodeId)?.state).toBe('synced')

    const audit = await ok<{
      entries: { action: string; outcome: string; detail: Record<string, unknown> }[]
    }>('audit.list', { action: 'job.retry', targetId: id }, admin)
    expect(audit.entries).toHaveLength(1)
    expect(audit.entries[0]).toMatchObject({ outcome: 'success', detail: { kind: 'dns.zone-sync' } })
  })

  it('should show a re-sent job that fails again as retrying, then dead, and let it be sent again', async () => {
    const { zoneId, nodeId } = await zoneBehindOnB()
    const body: JobMessage = { type: 'dns.zone-sync', zoneId, nodeId }
    const id = runKey(body, '')
    await deliver('panel-jobs', `refails-${crypto.randomUUID()}`, body, 18)
    await ok('jobs.retry', { id }, admin)
    const message = resent()
    const resentId = `resent-${crypto.randomUUID()}`
    await deliver('panel-jobs', resentId, message, 1)
    expect(await jobById(id)).toMatchObject({ state: 'retrying', attempts: 1, retries: 1 })
    await deliver('panel-jobs', resentId, message, 18)
    expect(await jobById(id)).toMatchObject({ state: 'dead', attempts: 18 })
    expect(await ok<Job>('jobs.retry', { id }, admin)).toMatchObject({ state: 'retried', retries: 2 })
  })

  it('should send a dead job once when two operators retry it at the same moment', async () => {
    const { zoneId, nodeId } = await zoneBehindOnB()
    const body: JobMessage = { type: 'dns.zone-sync', zoneId, nodeId }
    const id = runKey(body, '')
    await deliver('panel-jobs', `race-${crypto.randomUUID()}`, body, 18)
    const answers = await Promise.all([call('jobs.retry', { id }, admin), call('jobs.retry', { id }, admin)])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409])
    expect(sent.filter((message) => message.type === 'jobs.retried')).toHaveLength(1)
    expect(await jobById(id)).toMatchObject({ state: 'retried', retries: 1 })
  })

  it('should answer 404 for an unknown job and 409 for one the queue still retries', async () => {
    const missing = await call<{ code: string }>('jobs.retry', { id: 'no-such-job' }, admin)
    expect(missing.status, missing.text).toBe(404)
    expect(missing.body.code).toBe('not_found')

    const { zoneId, nodeId } = await zoneBehindOnB()
    const body: JobMessage = { type: 'dns.zone-sync', zoneId, nodeId }
    const id = runKey(body, '')
    await deliver('panel-jobs', `still-${crypto.randomUUID()}`, body, 1)
    const busy = await call<{ detail: string }>('jobs.retry', { id }, admin)
    expect(busy.status, busy.text).toBe(409)
    expect(busy.body.detail).toMatch(/still retrying/)
    expect(sent).toEqual([])
  })

  it('should redeliver a changelog webhook delivery that gave up, with a fresh budget of attempts', async () => {
    const answers = [502, 200]
    let hits = 0
    fakeOrigin(HOOKS, () => new Response(null, { status: answers[Math.min(hits++, answers.length - 1)] }))
    for (const target of await ok<{ id: string }[]>('changelog.webhooks.list', {}, admin)) {
      await ok('changelog.webhooks.update', { id: target.id, enabled: false }, admin)
    }
    const target = await ok<{ id: string }>(
      'changelog.webhooks.create',
      { url: `${HOOKS}/publish?token=secret-query`, secret: 'target-secret-0123456789abcdef' },
      admin,
    )
    const release = await publishRelease(admin, `30.${++versions}.0`, '2026-06-01')
    const [message] = sent.splice(0) as JobMessage[]
    expect(message?.type).toBe('changelog.webhook-delivery')
    const id = runKey(message as JobMessage, '')
    expect(
      await deliver(
        'panel-jobs',
        `delivery-${crypto.randomUUID()}`,
        message as JobMessage,
        DELIVERY_ATTEMPTS,
      ),
    ).toEqual({
      acked: true,
      retried: false,
    })
    const dead = await jobById(id)
    expect(dead).toMatchObject({
      state: 'dead',
      kind: 'changelog.webhook-delivery',
      attempts: DELIVERY_ATTEMPTS,
      target: `changelog ${release.version} to hooks.jobs.test`,
    })
    expect(dead?.lastError).toMatch(/502/)

    await ok('jobs.retry', { id }, admin)
    const deliveries = () =>
      ok<{ status: string; attempts: number }[]>(
        'changelog.webhooks.deliveries',
        { targetId: target.id },
        admin,
      )
    expect((await deliveries())[0]).toMatchObject({ status: 'queued', attempts: 0 })
    await deliver('panel-jobs', `resent-${crypto.randomUUID()}`, resent(), 1)
    expect((await deliveries())[0]).toMatchObject({ status: 'delivered', attempts: 1 })
    expect(await jobById(id)).toMatchObject({ state: 'succeeded' })
    expect(hits).toBe(2)
  })

  it('should list a delivery the sweep ended as a dead job, and settle it when a fresh run delivers it', async () => {
    fakeOrigin(HOOKS, () => new Response(null, { status: 503 }))
    for (const target of await ok<{ id: string }[]>('changelog.webhooks.list', {}, admin)) {
      await ok('changelog.webhooks.update', { id: target.id, enabled: false }, admin)
    }
    await ok(
      'changelog.webhooks.create',
      { url: `${HOOKS}/swept`, secret: 'target-secret-0123456789abcdef' },
      admin,
    )
    await publishRelease(admin, `31.${++versions}.0`, '2026-06-01')
    const [message] = sent.splice(0) as JobMessage[]
    if (message?.type !== 'changelog.webhook-delivery') throw new Error('expected a delivery job')
    // The last attempt dies before recording its result: the delivery stays pending with its budget spent.
    await env.DB.prepare('UPDATE changelog_webhook_deliveries SET attempts = ?, status = ? WHERE id = ?')
      .bind(DELIVERY_ATTEMPTS, 'retrying', message.deliveryId)
      .run()
    await runCron('*/10 * * * *', Date.now() + STALLED_AFTER_MS + 60_000)
    const row = (await jobsList({ kind: 'changelog.webhook-delivery', state: 'dead', limit: 500 })).jobs.find(
      (job) => job.targetId === message.deliveryId,
    )
    expect(row).toMatchObject({ attempts: DELIVERY_ATTEMPTS, targetKind: 'webhook-delivery' })
    expect(row?.lastError).toMatch(/gave up after 18 attempts/)

    fakeOrigin(HOOKS, () => new Response(null, { status: 200 }))
    await ok('jobs.retry', { id: row?.id }, admin)
    await deliver('panel-jobs', `resent-${crypto.randomUUID()}`, resent(), 1)
    expect(await jobById(row?.id ?? '')).toMatchObject({ state: 'succeeded' })
  })
})

describe('jobs.list', () => {
  it('should page newest first by last attempt, without repeats, and filter by state and kind', async () => {
    const probeId = crypto.randomUUID()
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const id = `page-${i}-${crypto.randomUUID()}`
      ids.push(id)
      await deliver(
        'panel-jobs-dlq',
        id,
        { type: 'probe.notify', probeId, target: 'webhook', notification: {} } as never,
        1,
      )
    }
    const seen: Job[] = []
    let cursor: string | null = null
    do {
      const page: JobPage = await jobsList({ kind: 'probe.notify', limit: 2, ...(cursor ? { cursor } : {}) })
      expect(page.jobs.length).toBeLessThanOrEqual(2)
      seen.push(...page.jobs)
      cursor = page.nextCursor
    } while (cursor)
    expect(new Set(seen.map((job) => job.id)).size).toBe(seen.length)
    expect(seen.map((job) => job.id)).toEqual(expect.arrayContaining(ids))
    const times = seen.map((job) => Date.parse(job.lastAttemptAt))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(seen.every((job) => job.kind === 'probe.notify')).toBe(true)

    expect(
      (await jobsList({ state: 'succeeded', limit: 500 })).jobs.every((job) => job.state === 'succeeded'),
    ).toBe(true)
    const last = await jobsList({ kind: 'probe.notify', limit: 500 })
    expect(last.nextCursor).toBeNull()
  })

  it('should refuse a cursor it did not hand out and a limit outside 1 to 500', async () => {
    for (const input of [{ cursor: 'garbage' }, { limit: 0 }, { limit: 501 }, { state: 'lost' }]) {
      const res = await call<{ code: string }>('jobs.list', input, admin)
      expect(res.status, res.text).toBe(400)
      expect(res.body.code).toBe('validation_failed')
    }
  })

  it('should be open to settings:view and closed to site tokens and tokens without it', async () => {
    const operator = await operatorSession(admin)
    expect((await call('jobs.list', {}, operator)).status).toBe(200)
    expect((await call('jobs.retry', { id: 'any' }, operator)).status).toBe(403)
    const site = await siteWithToken(admin)
    expect((await call('jobs.list', {}, site.app)).status).toBe(403)
    const lacking = await tokenFor(admin, ['domains:view'])
    expect((await call('jobs.list', {}, lacking)).status).toBe(403)
    const viewer = await tokenFor(admin, ['settings:view'])
    expect((await call('jobs.list', {}, viewer)).status).toBe(200)
    expect((await call('jobs.retry', { id: 'any' }, viewer)).status).toBe(403)
  })
})

describe('the succeeded jobs prune', () => {
  it('should delete succeeded rows 30 days after their last attempt and keep every unsettled row', async () => {
    const now = Date.parse('2031-03-01T00:00:00Z')
    const old = now - SUCCEEDED_RETENTION_MS - 1
    const rows: [string, string, number][] = [
      ['prune-old-succeeded', 'succeeded', old],
      ['prune-recent-succeeded', 'succeeded', now - SUCCEEDED_RETENTION_MS + 1],
      ['prune-old-dead', 'dead', old],
      ['prune-old-retrying', 'retrying', old],
      ['prune-old-retried', 'retried', old],
    ]
    for (const [id, state, at] of rows)
      await workerEnv.DB.prepare(
        `insert into failed_jobs (id, kind, body, target, target_kind, target_id, state, attempts, retries,
           first_attempt_at, last_attempt_at) values (?1, 'dns.zone-sync', '{}', 'zone', 'zone', 'z', ?2, 1, 0, ?3, ?3)`,
      )
        .bind(id, state, at)
        .run()
    await runCron('0 * * * *', now)
    const { results } = await workerEnv.DB.prepare(
      "select id from failed_jobs where id like 'prune-%' order by id",
    ).all<{ id: string }>()
    expect(results.map((row) => row.id)).toEqual([
      'prune-old-dead',
      'prune-old-retried',
      'prune-old-retrying',
      'prune-recent-succeeded',
    ])
  })
})

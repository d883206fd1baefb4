import { describe, expect, it } from 'vitest'
import { DELIVERY_ATTEMPTS } from '../src/changelog/jobs'
import { backoffSeconds } from '../src/lib/backoff'
import { createRelease, type ReleaseRow, runJobs, workerEnv } from './helpers/changelog'
import {
  admin,
  createTarget,
  deliveries,
  expectSigned,
  HOOKS,
  jobs,
  nextVersion,
  publish,
  receiver,
  type Target,
} from './helpers/changelog-webhooks'
import { type CallResult, call, ok, send } from './helpers/http'
import { outboundRequests } from './helpers/outbound'
import { beforeNextBatch } from './helpers/races'

describe('publish webhook delivery', () => {
  it('should send one signed POST per enabled target with the release in feed shape', async () => {
    const received = receiver(HOOKS)
    const target = await createTarget(`${HOOKS}/signed`)
    const { release, messages } = await publish({
      summary: 'Signed.',
      items: [{ category: 'new', text: 'Webhooks.' }],
    })
    expect(messages).toEqual([{ type: 'changelog.webhook-delivery', deliveryId: expect.any(String) }])
    // Publishing itself made no outbound request: delivery happens in the queue consumer.
    expect(outboundRequests()).toHaveLength(0)
    expect((await deliveries({ releaseId: release.id }))[0]).toMatchObject({ status: 'queued', attempts: 0 })

    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.explicitAcks).toEqual(['msg-0'])
    expect(received).toHaveLength(1)
    const [hit] = received
    if (!hit) throw new Error('no delivery arrived')

    await expectSigned(hit)
    expect(hit.headers.get('content-type')).toBe('application/json')

    const feed = (await send('/api/v1/meta/changelog')).body as { releases: { version: string }[] }
    const payload = JSON.parse(hit.body) as { event: string; release: unknown }
    expect(Object.keys(payload).sort()).toEqual(['event', 'release'])
    expect(payload.event).toBe('changelog.published')
    expect(payload.release).toEqual(feed.releases.find((r) => r.version === release.version))

    const [delivery] = await deliveries({ targetId: target.id })
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null })
    expect(delivery?.deliveredAt).toEqual(expect.any(String))
  })

  it("should delete a removed target's delivery history with it", async () => {
    const target = await createTarget(`${HOOKS}/removed-with-history`)
    const { release } = await publish()
    expect(await deliveries({ releaseId: release.id })).toHaveLength(1)
    await ok('changelog.webhooks.remove', { id: target.id }, admin)
    const left = await workerEnv.DB.prepare(
      'SELECT count(*) AS n FROM changelog_webhook_deliveries WHERE target_id = ?',
    )
      .bind(target.id)
      .first<{ n: number }>()
    expect(left?.n).toBe(0)
  })

  it('should send nothing to a disabled target', async () => {
    const enabledHits = receiver(HOOKS)
    const disabledHits = receiver('https://disabled.example.test')
    await createTarget(`${HOOKS}/on`)
    const disabled = await createTarget('https://disabled.example.test/off', false)
    const { messages } = await publish()
    expect(messages).toHaveLength(1)
    await runJobs(messages.map((body) => ({ body })))
    expect(enabledHits).toHaveLength(1)
    expect(disabledHits).toHaveLength(0)
    expect(await deliveries({ targetId: disabled.id })).toEqual([])
  })

  it('should skip a delivery whose target was disabled after the publish', async () => {
    const hits = receiver(HOOKS)
    const target = await createTarget(`${HOOKS}/late-disable`)
    const { messages } = await publish()
    await ok('changelog.webhooks.update', { id: target.id, enabled: false }, admin)
    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.explicitAcks).toHaveLength(1)
    expect(hits).toHaveLength(0)
    expect((await deliveries({ targetId: target.id }))[0]).toMatchObject({ status: 'skipped' })
  })

  it('should retry a failing target with backoff until it accepts', async () => {
    const hits = receiver(HOOKS, [503, 500, 200])
    const target = await createTarget(`${HOOKS}/flaky`)
    const { release, messages } = await publish()
    const [body] = messages
    if (!body) throw new Error('no message')

    for (const attempts of [1, 2]) {
      const result = await runJobs([{ body, attempts }])
      expect(result.explicitAcks).toEqual([])
      expect(result.retryMessages).toEqual([{ msgId: 'msg-0' }])
      expect(result.retryDelays).toEqual({ 'msg-0': backoffSeconds(attempts) })
      const [delivery] = await deliveries({ targetId: target.id, releaseId: release.id })
      expect(delivery).toMatchObject({
        status: 'retrying',
        attempts,
        lastStatusCode: attempts === 1 ? 503 : 500,
      })
      expect(delivery?.lastError).toMatch(/answered 50\d/)
      const next = Date.parse(delivery?.nextAttemptAt ?? '')
      expect(next - Date.now()).toBeGreaterThan((backoffSeconds(attempts) - 5) * 1000)
    }
    const final = await runJobs([{ body, attempts: 3 }])
    expect(final.explicitAcks).toEqual(['msg-0'])
    expect(hits).toHaveLength(3)
    // Every attempt sends the same bytes, freshly signed.
    expect(new Set(hits.map((h) => h.body)).size).toBe(1)
    for (const hit of hits) await expectSigned(hit)
    expect((await deliveries({ targetId: target.id }))[0]).toMatchObject({
      status: 'delivered',
      attempts: 3,
      lastError: null,
    })
  })

  it('should wait at least as long as a 429 Retry-After asks', async () => {
    receiver(HOOKS, [new Response(null, { status: 429, headers: { 'retry-after': '3600' } })])
    await createTarget(`${HOOKS}/throttled`)
    const { messages } = await publish()
    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.retryDelays).toEqual({ 'msg-0': 3600 })
  })

  it('should retry a network failure', async () => {
    const target = await createTarget('https://unreachable.example.test/hook')
    const { messages } = await publish()
    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.retryDelays).toEqual({ 'msg-0': backoffSeconds(1) })
    const [delivery] = await deliveries({ targetId: target.id })
    expect(delivery).toMatchObject({ status: 'retrying', lastStatusCode: null })
    expect(delivery?.lastError).toMatch(/request failed/)
  })

  it('should give up after the last attempt and end the message as a dead job', async () => {
    receiver(HOOKS, [502])
    const target = await createTarget(`${HOOKS}/down-for-good`)
    const { messages } = await publish()
    const result = await runJobs(messages.map((body) => ({ body, attempts: DELIVERY_ATTEMPTS })))
    expect(result.explicitAcks).toEqual(['msg-0'])
    expect(result.retryMessages).toEqual([])
    const [delivery] = await deliveries({ targetId: target.id })
    expect(delivery).toMatchObject({ status: 'failed', attempts: DELIVERY_ATTEMPTS, nextAttemptAt: null })
    expect(delivery?.lastError).toMatch(/gave up after 18 attempts \(see the jobs list\)/)
  })

  it('should disable a target that answers 410 Gone and send it nothing more', async () => {
    const hits = receiver(HOOKS, [410])
    const target = await createTarget(`${HOOKS}/gone`)
    const { messages } = await publish()
    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.explicitAcks).toEqual(['msg-0'])
    const [row] = (await ok<Target[]>('changelog.webhooks.list', {}, admin)).filter((t) => t.id === target.id)
    expect(row).toMatchObject({ enabled: false })
    expect(row?.disabledReason).toMatch(/410/)
    expect((await deliveries({ targetId: target.id }))[0]).toMatchObject({
      status: 'failed',
      lastStatusCode: 410,
    })
    const next = await publish()
    expect(next.messages).toHaveLength(0)
    expect(hits).toHaveLength(1)
  })

  it('should not send twice when the queue redelivers a delivered message', async () => {
    const hits = receiver(HOOKS)
    await createTarget(`${HOOKS}/once`)
    const { messages } = await publish()
    await runJobs(messages.map((body) => ({ body })))
    const again = await runJobs(messages.map((body) => ({ body, attempts: 2 })))
    expect(again.explicitAcks).toEqual(['msg-0'])
    expect(hits).toHaveLength(1)
  })

  it('should skip undelivered notifications of a release unpublished before delivery', async () => {
    const hits = receiver(HOOKS)
    const target = await createTarget(`${HOOKS}/unpublished`)
    const { release, messages } = await publish()
    await ok('changelog.releases.unpublish', { id: release.id }, admin)
    await runJobs(messages.map((body) => ({ body })))
    expect(hits).toHaveLength(0)
    expect((await deliveries({ targetId: target.id }))[0]).toMatchObject({ status: 'skipped' })
  })

  it('should publish even when the queue refuses the messages, keeping the delivery queued with the refusal on it', async () => {
    const target = await createTarget(`${HOOKS}/queue-down`)
    jobs.sendBatch.mockRejectedValueOnce(new Error('queue unavailable'))
    const draft = await createRelease(admin, nextVersion())
    const res = await call<ReleaseRow>('changelog.releases.publish', { id: draft.id }, admin)
    expect(res.status, res.text).toBe(200)
    expect(res.body.state).toBe('published')
    const [delivery] = await deliveries({ targetId: target.id })
    expect(delivery).toMatchObject({ status: 'queued', attempts: 0, releaseId: draft.id })
    expect(delivery?.lastError).toMatch(/queue refused/)
    expect(delivery?.lastError).toMatch(/queue unavailable/)
  })

  it('should record a failed attempt when the target secret cannot be opened', async () => {
    const hits = receiver(HOOKS)
    const target = await createTarget(`${HOOKS}/unopenable-secret`)
    const { messages } = await publish()
    await workerEnv.DB.prepare('UPDATE changelog_webhook_targets SET secret_sealed = ? WHERE id = ?')
      .bind('v1.00000000.bm90.c2VhbGVk', target.id)
      .run()
    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.retryDelays).toEqual({ 'msg-0': backoffSeconds(1) })
    expect(hits).toHaveLength(0)
    const [delivery] = await deliveries({ targetId: target.id })
    expect(delivery).toMatchObject({ status: 'retrying', attempts: 1, lastStatusCode: null })
    expect(delivery?.lastError).toMatch(/no configured key/)
  })

  it('should publish when a target is removed between the publish reading and committing', async () => {
    const target = await createTarget(`${HOOKS}/removed-mid-publish`)
    const draft = await createRelease(admin, nextVersion())
    jobs.sent.length = 0
    beforeNextBatch(() => ok('changelog.webhooks.remove', { id: target.id }, admin))
    const res = await call<ReleaseRow>('changelog.releases.publish', { id: draft.id }, admin)
    expect(res.status, res.text).toBe(200)
    expect(res.body.state).toBe('published')
    expect(await deliveries({ releaseId: draft.id })).toEqual([])
    expect(jobs.sent).toEqual([])
  })

  it('should notify once when two publishes of one draft race, and answer the later one 409', async () => {
    const hits = receiver(HOOKS)
    await createTarget(`${HOOKS}/race`)
    const draft = await createRelease(admin, nextVersion())
    jobs.sent.length = 0
    let rival: CallResult | undefined
    beforeNextBatch(async () => {
      rival = await call('changelog.releases.publish', { id: draft.id }, admin)
    })
    const late = await call('changelog.releases.publish', { id: draft.id }, admin)
    expect(rival?.status, rival?.text).toBe(200)
    expect(late.status, late.text).toBe(409)

    const rows = await deliveries({ releaseId: draft.id })
    expect(rows).toHaveLength(1)
    expect(jobs.sent).toEqual([{ type: 'changelog.webhook-delivery', deliveryId: rows[0]?.id }])
    await runJobs(jobs.sent.splice(0).map((body) => ({ body })))
    expect(hits).toHaveLength(1)
    const audit = await ok<{ entries: { action: string }[] }>('audit.list', { targetId: draft.id }, admin)
    expect(audit.entries.map((e) => e.action).filter((a) => a === 'changelog.release-publish')).toHaveLength(
      1,
    )
  })

  it('should publish with a target that only fails, and leave the failure on the delivery row', async () => {
    receiver(HOOKS, [500])
    const target = await createTarget(`${HOOKS}/always-500`)
    const draft = await createRelease(admin, nextVersion())
    const res = await call('changelog.releases.publish', { id: draft.id }, admin)
    expect(res.status, res.text).toBe(200)
    await runJobs(jobs.sent.splice(0).map((body) => ({ body })))
    expect((await deliveries({ targetId: target.id }))[0]).toMatchObject({
      status: 'retrying',
      lastStatusCode: 500,
    })
    const feed = (await send('/api/v1/meta/changelog')).body as { releases: { version: string }[] }
    expect(feed.releases.map((r) => r.version)).toContain(res.body && (res.body as ReleaseRow).version)
  })
})

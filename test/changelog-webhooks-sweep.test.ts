import { describe, expect, it, type MockInstance, vi } from 'vitest'
import { deliverySweepTask, STALLED_AFTER_MS } from '../src/changelog/delivery-sweep-cron'
import { DELIVERY_ATTEMPTS } from '../src/changelog/jobs'
import { runCron, runJobs, workerEnv } from './helpers/changelog'
import {
  createTarget,
  deliveries,
  expectSigned,
  HOOKS,
  jobs,
  publish,
  receiver,
} from './helpers/changelog-webhooks'
import { fakeOrigin } from './helpers/outbound'

describe('delivery sweep', () => {
  const sweep = (at: number) => runCron(deliverySweepTask.schedule, at)
  const sweptFor = (deliveryId: string | undefined) =>
    jobs.sent.filter((m) => m.type === 'changelog.webhook-delivery' && m.deliveryId === deliveryId)

  it('should re-enqueue a delivery the queue refused once no job chain can be alive, and deliver it', async () => {
    const hits = receiver(HOOKS)
    const target = await createTarget(`${HOOKS}/swept`)
    jobs.sendBatch.mockRejectedValueOnce(new Error('queue unavailable'))
    const { release } = await publish()
    const [refused] = await deliveries({ releaseId: release.id })
    expect(refused).toMatchObject({ status: 'queued', attempts: 0 })

    await sweep(Date.now())
    expect(sweptFor(refused?.id)).toEqual([])

    await sweep(Date.now() + STALLED_AFTER_MS + 60_000)
    const messages = sweptFor(refused?.id)
    expect(messages).toEqual([{ type: 'changelog.webhook-delivery', deliveryId: refused?.id }])
    const result = await runJobs(messages.map((body) => ({ body })))
    expect(result.explicitAcks).toEqual(['msg-0'])
    expect(hits).toHaveLength(1)
    const [hit] = hits
    if (hit) await expectSigned(hit)
    expect((await deliveries({ targetId: target.id }))[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastError: null,
    })

    // Swept once: the next sweep at the same time finds it touched and queues nothing more.
    jobs.sent.length = 0
    await sweep(Date.now() + STALLED_AFTER_MS + 60_000)
    expect(sweptFor(refused?.id)).toEqual([])
  })

  it('should mark failed a delivery whose last attempt died before recording its result', async () => {
    let broken: MockInstance | undefined
    fakeOrigin(HOOKS, () => {
      // The target answers, then D1 fails: the handler throws before it can write the outcome.
      broken = vi.spyOn(workerEnv.DB, 'prepare').mockImplementation(() => {
        throw new Error('D1 is down')
      })
      return new Response(null, { status: 502 })
    })
    const target = await createTarget(`${HOOKS}/dies-at-the-end`)
    const { release, messages } = await publish()
    let result: Awaited<ReturnType<typeof runJobs>>
    try {
      result = await runJobs(messages.map((body) => ({ body, attempts: DELIVERY_ATTEMPTS })))
    } finally {
      broken?.mockRestore()
    }
    // The consumer retries the throw, which past max_retries dead-letters the message: no chain is left.
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(['msg-0'])
    const [stuck] = await deliveries({ releaseId: release.id })
    expect(stuck).toMatchObject({ attempts: DELIVERY_ATTEMPTS })
    expect(['queued', 'retrying']).toContain(stuck?.status)

    jobs.sent.length = 0
    await sweep(Date.now() + STALLED_AFTER_MS + 60_000)
    expect(sweptFor(stuck?.id)).toEqual([])
    const [failed] = await deliveries({ targetId: target.id })
    expect(failed).toMatchObject({ status: 'failed', attempts: DELIVERY_ATTEMPTS, nextAttemptAt: null })
    expect(failed?.lastError).toMatch(new RegExp(`gave up after ${DELIVERY_ATTEMPTS} attempts`))
  })
})

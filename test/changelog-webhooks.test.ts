import { beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest'
import { deliverySweepTask, STALLED_AFTER_MS } from '../src/changelog/delivery-sweep-cron'
import { DELIVERY_ATTEMPTS } from '../src/changelog/jobs'
import { verifyServiceSignature } from '../src/client'
import type { JobMessage } from '../src/jobs/messages'
import { backoffSeconds } from '../src/lib/backoff'
import {
  captureJobs,
  createRelease,
  publishRelease,
  type ReleaseRow,
  runCron,
  runJobs,
  workerEnv,
} from './helpers/changelog'
import { type Caller, type CallResult, call, ok, send } from './helpers/http'
import { fakeOrigin, interceptOutbound, outboundRequests } from './helpers/outbound'
import { adminSession, operatorSession } from './helpers/principals'
import { beforeNextBatch } from './helpers/races'

interface Target {
  id: string
  url: string
  enabled: boolean
  hasSecret: true
  disabledReason: string | null
}
interface Delivery {
  id: string
  targetId: string
  releaseId: string
  version: string
  status: string
  attempts: number
  lastError: string | null
  lastStatusCode: number | null
  nextAttemptAt: string | null
  deliveredAt: string | null
}
interface Received {
  headers: Headers
  body: string
}

const HOOKS = 'https://hooks.example.test'
const SECRET = 'target-secret-0123456789abcdef'
let admin: Caller
let jobs: ReturnType<typeof captureJobs>
let versionCounter = 0

/** HMAC-SHA256 over `<timestamp>.<body>` written here, apart from the panel's signer, with WebCrypto directly. */
async function independentSignature(secret: string, timestamp: string, body: string): Promise<string> {
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${body}`)))
  return `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

/** A fake webhook receiver on `origin` that answers each request with the next status (the last one repeats). */
function receiver(origin: string, answers: (number | Response)[] = [200]): Received[] {
  const received: Received[] = []
  fakeOrigin(origin, async (request) => {
    received.push({ headers: request.headers, body: await request.text() })
    const answer = answers[Math.min(received.length - 1, answers.length - 1)] ?? 200
    return typeof answer === 'number' ? new Response(null, { status: answer }) : answer
  })
  return received
}

async function createTarget(url: string, enabled = true, secret = SECRET): Promise<Target> {
  return ok<Target>('changelog.webhooks.create', { url, secret, enabled }, admin)
}

async function deliveries(filter: { targetId?: string; releaseId?: string }): Promise<Delivery[]> {
  return ok<Delivery[]>('changelog.webhooks.deliveries', filter, admin)
}

function nextVersion(): string {
  return `10.${++versionCounter}.0`
}

/** Publishes a fresh release and returns it with the queue messages the publish sent. */
async function publish(
  fields: Record<string, unknown> = {},
): Promise<{ release: ReleaseRow; messages: JobMessage[] }> {
  jobs.sent.length = 0
  const release = await publishRelease(admin, nextVersion(), '2026-06-01', fields)
  return { release, messages: jobs.sent.splice(0) }
}

/** Asserts that a request carries a valid signature of its exact body under SECRET. */
async function expectSigned(hit: Received): Promise<void> {
  const timestamp = hit.headers.get('x-service-timestamp') ?? ''
  expect(timestamp).toMatch(/^\d{13}$/)
  expect(Math.abs(Date.now() - Number(timestamp))).toBeLessThan(60_000)
  expect(hit.headers.get('x-service-signature')).toBe(await independentSignature(SECRET, timestamp, hit.body))
  expect(await verifyServiceSignature(hit.body, hit.headers, SECRET)).toEqual({ ok: true })
}

async function disableAllTargets(): Promise<void> {
  for (const target of await ok<Target[]>('changelog.webhooks.list', {}, admin)) {
    await ok('changelog.webhooks.update', { id: target.id, enabled: false }, admin)
  }
}

beforeAll(async () => {
  admin = await adminSession()
  jobs = captureJobs()
})

beforeEach(async () => {
  interceptOutbound()
  await disableAllTargets()
})

describe('changelog.webhooks targets', () => {
  it('should store the secret encrypted and never return it', async () => {
    const created = await createTarget(`${HOOKS}/secret-check`)
    expect(created).toMatchObject({
      url: `${HOOKS}/secret-check`,
      enabled: true,
      hasSecret: true,
      disabledReason: null,
    })
    expect(created).not.toHaveProperty('secret')
    const listed = await call('changelog.webhooks.list', {}, admin)
    expect(listed.status, listed.text).toBe(200)
    expect(listed.text).not.toContain(SECRET)
    const row = await workerEnv.DB.prepare('SELECT secret_sealed FROM changelog_webhook_targets WHERE id = ?')
      .bind(created.id)
      .first<{ secret_sealed: string }>()
    expect(row?.secret_sealed).toMatch(/^v1\./)
    expect(row?.secret_sealed).not.toContain(SECRET)
    expect(listed.text).not.toContain(row?.secret_sealed)
  })

  it('should update and remove a target, and audit each change', async () => {
    const target = await createTarget(`${HOOKS}/lifecycle`)
    const updated = await ok<Target>(
      'changelog.webhooks.update',
      { id: target.id, url: `${HOOKS}/moved`, secret: 'a-brand-new-secret-value', enabled: false },
      admin,
    )
    expect(updated).toMatchObject({ url: `${HOOKS}/moved`, enabled: false, hasSecret: true })
    expect(await ok('changelog.webhooks.remove', { id: target.id }, admin)).toEqual({ removed: true })
    const missing = await call('changelog.webhooks.update', { id: target.id, enabled: true }, admin)
    expect(missing.status, missing.text).toBe(404)
    const audit = await ok<{ entries: { action: string }[] }>('audit.list', { targetId: target.id }, admin)
    expect(audit.entries.map((e) => e.action).reverse()).toEqual([
      'changelog.webhook-create',
      'changelog.webhook-update',
      'changelog.webhook-remove',
    ])
  })

  it('should let settings:view read and only settings:edit write', async () => {
    const operator = await operatorSession(admin)
    expect((await call('changelog.webhooks.list', {}, operator)).status).toBe(200)
    expect((await call('changelog.webhooks.deliveries', {}, operator)).status).toBe(200)
    const refused = await call('changelog.webhooks.create', { url: `${HOOKS}/x`, secret: SECRET }, operator)
    expect(refused.status, refused.text).toBe(403)
  })

  it.each([
    ['plain http', 'http://hooks.example.test/x'],
    ['loopback', 'https://127.0.0.1/x'],
    ['loopback by name', 'https://localhost:8787/x'],
    ['a private address', 'https://10.1.2.3/x'],
    ['a private 172.16/12 address', 'https://172.20.0.1/x'],
    ['link-local', 'https://169.254.169.254/latest'],
    ['IPv6 loopback', 'https://[::1]/x'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['IPv6 unique-local', 'https://[fd00::1]/x'],
    ['a non-http scheme', 'ftp://hooks.example.test/x'],
    ['credentials in the URL', 'https://user:pass@hooks.example.test/x'],
  ])('should refuse %s in production, naming url', async (_what, url) => {
    expect(workerEnv.ENVIRONMENT).toBe('production')
    const res = await call<{ issues?: { path: string }[] }>(
      'changelog.webhooks.create',
      { url, secret: SECRET },
      admin,
    )
    expect(res.status, res.text).toBe(400)
    expect(res.body.issues?.map((i) => i.path)).toEqual(['url'])
  })

  it('should allow a loopback http target in local development', async () => {
    workerEnv.ENVIRONMENT = 'development'
    try {
      const target = await createTarget('http://127.0.0.1:9999/hook', false)
      expect(target.url).toBe('http://127.0.0.1:9999/hook')
      const refused = await call(
        'changelog.webhooks.create',
        { url: 'ftp://127.0.0.1/x', secret: SECRET },
        admin,
      )
      expect(refused.status, refused.text).toBe(400)
    } finally {
      workerEnv.ENVIRONMENT = 'production'
    }
  })
})

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

describe('verifyServiceSignature (client entry)', () => {
  const body = '{"event":"changelog.published","release":{"version":"1.0.0","title":"Hello"}}'
  const timestamp = 1767225600000
  // Computed with node's crypto: createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex').
  const vector = 'sha256=1d884ae06018fa6e57f449f0c13c27cf0d9e4887aa643a0e0b08228eb971277e'
  const secret = 'whsec_changelog_vector_secret'
  const headers = { 'x-service-timestamp': String(timestamp), 'x-service-signature': vector }

  it('should accept the independently computed vector', async () => {
    expect(await verifyServiceSignature(body, headers, secret, timestamp)).toEqual({ ok: true })
    expect(await independentSignature(secret, String(timestamp), body)).toBe(vector)
  })

  it('should accept Headers and any header-name case', async () => {
    expect(await verifyServiceSignature(body, new Headers(headers), secret, timestamp)).toEqual({ ok: true })
    const shouting = { 'X-Service-Timestamp': String(timestamp), 'X-Service-Signature': vector }
    expect(await verifyServiceSignature(body, shouting, secret, timestamp)).toEqual({ ok: true })
  })

  it('should reject a changed body, a wrong secret or a changed signature', async () => {
    expect((await verifyServiceSignature(`${body} `, headers, secret, timestamp)).ok).toBe(false)
    expect((await verifyServiceSignature(body, headers, 'another-secret', timestamp)).ok).toBe(false)
    const flipped = `${vector.slice(0, -1)}${vector.endsWith('e') ? 'f' : 'e'}`
    expect(
      (await verifyServiceSignature(body, { ...headers, 'x-service-signature': flipped }, secret, timestamp))
        .ok,
    ).toBe(false)
    const bare = vector.replace('sha256=', '')
    expect(
      (await verifyServiceSignature(body, { ...headers, 'x-service-signature': bare }, secret, timestamp)).ok,
    ).toBe(false)
  })

  it('should reject missing headers and a timestamp that is not a millisecond number', async () => {
    expect(
      await verifyServiceSignature(body, { 'x-service-signature': vector }, secret, timestamp),
    ).toMatchObject({ ok: false })
    expect(
      await verifyServiceSignature(body, { 'x-service-timestamp': String(timestamp) }, secret, timestamp),
    ).toMatchObject({
      ok: false,
    })
    const iso = { ...headers, 'x-service-timestamp': new Date(timestamp).toISOString() }
    expect((await verifyServiceSignature(body, iso, secret, timestamp)).ok).toBe(false)
  })

  it('should accept up to 5 minutes of clock difference either way, and no more', async () => {
    const fiveMinutes = 5 * 60 * 1000
    expect((await verifyServiceSignature(body, headers, secret, timestamp + fiveMinutes)).ok).toBe(true)
    expect((await verifyServiceSignature(body, headers, secret, timestamp - fiveMinutes)).ok).toBe(true)
    expect((await verifyServiceSignature(body, headers, secret, timestamp + fiveMinutes + 1)).ok).toBe(false)
    expect((await verifyServiceSignature(body, headers, secret, timestamp - fiveMinutes - 1)).ok).toBe(false)
  })
})

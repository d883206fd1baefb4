import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { cloudflareFake, cloudflareRateLimited } from './fakes/provider-a-cloudflare'
import { type LimitedFake, withRateLimit } from './fakes/provider-rate-limit'
import { type Caller, ok } from './helpers/http'
import { runJob } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'
import { QueueClock } from './helpers/queue-clock'

// Bulk registration into a connected zone against a provider fake that enforces its rate limit (Cloudflare's
// shape, scaled down to 20 requests per 10 s so a test crosses it several times): no row fails for the limit, no
// record is written twice, and a waiting row says why it waits and until when.

interface Status {
  state: string
  lastError?: string
  failureRemedy?: string
}

const workerEnv = env as unknown as Env
const LIMIT = 20
const WINDOW_MS = 10_000

let cf: ReturnType<typeof cloudflareFake>
let limited: LimitedFake
let sent: SentJob[]
let admin: Caller
let site: SiteFixture
/** Record creates the fake applied, by name, and its "identical record already exists" answers. */
let creates: Map<string, number>
let identical: number
/** When the fake applied its last record create. */
let lastCreateAt: number
/** The names of the requests the fake refused for its limit, in order. */
let refusedNames: string[]
/** When set, the next create is applied but answered 429, as if the limit struck after the write. */
let refuseAfterNextCreate: boolean
/** When the test's clock starts: a session's own clock, so sign-ins made before it stay valid. */
let t0: number

beforeEach(async () => {
  cf = cloudflareFake()
  limited = withRateLimit(cf.handle, {
    limit: LIMIT,
    windowMs: WINDOW_MS,
    refuse: cloudflareRateLimited,
  })
  creates = new Map()
  identical = 0
  refusedNames = []
  lastCreateAt = 0
  refuseAfterNextCreate = false
  fakeOrigin(cf.origin, async (request) => {
    const post = request.method === 'POST'
    const name = post
      ? ((await request.clone().json()) as { name: string }).name
      : (new URL(request.url).searchParams.get('name') ?? '')
    const answer = await limited.handle(request)
    if (answer.status === 429) refusedNames.push(name)
    if (post && answer.ok) {
      creates.set(name, (creates.get(name) ?? 0) + 1)
      lastCreateAt = Date.now()
    }
    if (post && answer.status === 400 && (await answer.clone().text()).includes('81058')) identical++
    if (post && answer.ok && refuseAfterNextCreate) {
      refuseAfterNextCreate = false
      return cloudflareRateLimited(3)
    }
    return answer
  })
  sent = captureJobs()
  admin = await adminSession()
  site = await siteWithToken(admin)
  t0 = Date.now()
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(t0)
})

afterEach(() => {
  vi.useRealTimers()
  workerEnv.DNS_PROVIDER_RATE_LIMITS = undefined
})

async function connectedZone(label: string): Promise<string> {
  const name = zoneName(label)
  cf.addZone(name)
  await ok('accounts.create', { kind: 'dns', name: label, provider: 'provider_a', token: cf.token }, admin)
  await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [name] }, admin)
  // The account was connected a while before: its checks of the token left the provider's window.
  t0 += WINDOW_MS
  vi.setSystemTime(t0)
  return name
}

async function registerMany(zone: string, count: number): Promise<string[]> {
  const hostnames = Array.from({ length: count }, (_, i) => `shop${i}.${zone}`)
  for (const hostname of hostnames)
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
  return hostnames
}

const shown = (hostname: string) =>
  ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)

/** The queue on a clock that moves `Date` with it, so the fake's window, Retry-After and the panel agree. */
function queueOnClock(): QueueClock {
  return new QueueClock(sent, (seconds) => vi.setSystemTime(t0 + seconds * 1000))
}

async function expectEachWrittenOnce(hostnames: string[]): Promise<void> {
  for (const hostname of hostnames) {
    expect((await shown(hostname)).state, hostname).toBe('active')
    expect(creates.get(hostname), hostname).toBe(1)
    expect(
      cf.records.filter((r) => r.name === hostname),
      hostname,
    ).toHaveLength(1)
  }
  expect(identical).toBe(0)
}

describe('bulk registration within a provider rate limit', () => {
  it('should pace 60 hostnames to the provider limit: every row active, each record written once, no 429, the waiting rows saying why', async () => {
    workerEnv.DNS_PROVIDER_RATE_LIMITS = `provider_a=${LIMIT}/${WINDOW_MS / 1000}`
    const zone = await connectedZone('paced')
    const hostnames = await registerMany(zone, 60)
    const clock = queueOnClock()
    expect(await clock.runUntil(async () => clock.now > 0, 1000)).toBeGreaterThan(0)
    const last = await shown(hostnames.at(-1) ?? '')
    expect(last.state).toBe('pending')
    expect(last.lastError).toMatch(/waits for the DNS provider's rate limit/)
    expect(last.lastError).toMatch(/next try at \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
    expect(last.failureRemedy).toBeUndefined()
    expect(await clock.runUntil(async () => false, 1000)).toBeNull()
    await expectEachWrittenOnce(hostnames)
    expect(limited.counts.refused).toBe(0)
    // 120 calls (a read and a create each) at 90% of 20 per 10 s take about 67 s.
    expect((lastCreateAt - t0) / 1000).toBeGreaterThan(55)
    expect((lastCreateAt - t0) / 1000).toBeLessThan(80)
  }, 120_000)

  it('should honour 429 Retry-After without spending the rows’ tries when the panel misjudges the limit', async () => {
    // The panel believes 10 times the real limit: only the provider's 429s hold it back.
    workerEnv.DNS_PROVIDER_RATE_LIMITS = `provider_a=${LIMIT * 10}/${WINDOW_MS / 1000}`
    const zone = await connectedZone('walled')
    const hostnames = await registerMany(zone, 60)
    // Register's own reads may meet the wall too (they then count as nothing in the way); the write job's do next.
    const byRegister = refusedNames.length
    const clock = queueOnClock()
    expect(await clock.runUntil(async () => refusedNames.length > byRegister, 1000)).not.toBeNull()
    const waiting = await shown(refusedNames.at(-1) ?? '')
    expect(waiting.state).toBe('pending')
    expect(waiting.lastError).toMatch(/over its rate limit/)
    expect(waiting.lastError).toMatch(/next try at \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
    expect(await clock.runUntil(async () => false, 2000)).toBeNull()
    // 120 calls at 20 per 10 s cross the limit about 6 times; each 429 holds the account's other writes back.
    expect(limited.counts.refused).toBeGreaterThanOrEqual(5)
    await expectEachWrittenOnce(hostnames)
  }, 120_000)

  it('should keep a row pending through more 429s in a row than a write round has tries, then write it once', async () => {
    const zone = await connectedZone('refused')
    cf.rateLimitRetryAfter = 45
    const [hostname = ''] = await registerMany(zone, 1)
    const clock = queueOnClock()
    // Register's own read of the name, then six tries of the write job.
    expect(await clock.runUntil(async () => refusedNames.length >= 7)).not.toBeNull()
    const waiting = await shown(hostname)
    expect(waiting.state).toBe('pending')
    expect(waiting.lastError).toMatch(/over its rate limit; next try at/)
    cf.rateLimitRetryAfter = null
    expect(await clock.runUntil(async () => false)).toBeNull()
    await expectEachWrittenOnce([hostname])
  })

  it('should adopt a record the provider created before answering 429, write it once and delete it on remove', async () => {
    const zone = await connectedZone('struck')
    const [hostname = ''] = await registerMany(zone, 1)
    refuseAfterNextCreate = true
    const clock = queueOnClock()
    expect(await clock.runUntil(async () => false)).toBeNull()
    await expectEachWrittenOnce([hostname])
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    expect(await clock.runUntil(async () => false)).toBeNull()
    expect(cf.records.filter((r) => r.name === hostname)).toEqual([])
  })

  it('should hand a long wait to a fresh message when the Queue has one delivery left', async () => {
    workerEnv.DNS_PROVIDER_RATE_LIMITS = 'provider_a=2/3600'
    const zone = await connectedZone('long-wait')
    const hostnames = await registerMany(zone, 3)
    const jobs = sent.splice(0).filter((job) => job.body.type === 'custom-hostname.write')
    const last = jobs.at(-1)?.body
    if (!last) throw new Error('no write job was queued')
    expect(await runJob(last, 17)).toEqual({ acked: true, retryDelay: null })
    const handed = sent.filter((job) => job.body.type === 'custom-hostname.write')
    expect(handed).toHaveLength(1)
    expect(handed[0]?.body).toEqual(last)
    // Capped at 30 minutes, so the row is touched well before the sweep's two hours.
    expect(handed[0]?.delaySeconds).toBe(1800)
    expect((await shown(hostnames.at(-1) ?? '')).lastError).toMatch(/rate limit/)
    expect((await runJob(last, 1)).acked).toBe(false)
  })
})

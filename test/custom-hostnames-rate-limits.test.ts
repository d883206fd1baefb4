import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { HOLD_MS } from '../src/custom-hostnames/held-calls'
import { HOSTNAME_WINDOWS, type HostnameWindow } from '../src/custom-hostnames/rate-limits'
import type { Env } from '../src/env'
import { type SiteFixture, siteTokenWindow, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { type CallResult, call } from './helpers/http'
import { adminSession, userSession } from './helpers/principals'

const workerEnv = env as unknown as Env
let site: SiteFixture
let customer: string

beforeEach(async () => {
  captureJobs()
  new FakeDoh().install()
  site = await siteWithToken(await adminSession())
  customer = zoneName('windows')
})

const hostnameCall = (name: string, hostname?: string) =>
  call(`customHostnames.${name}`, { siteId: site.siteId, ...(hostname ? { hostname } : {}) }, site.app)

/** Makes `count` calls, `batch` at a time, and fails on the first that does not answer `expected`. */
async function spend(
  count: number,
  makeCall: (i: number) => Promise<CallResult>,
  expected = 200,
  batch = 100,
): Promise<void> {
  for (let done = 0; done < count; done += batch) {
    const results = await Promise.all(
      Array.from({ length: Math.min(batch, count - done) }, (_, i) => makeCall(done + i)),
    )
    const wrong = results.find((result) => result.status !== expected)
    if (wrong) throw new Error(`a call before the limit answered ${wrong.status}: ${wrong.text}`)
  }
}

/** Records `hits` calls in the site token's window straight in its RateLimiter, as if they had been made. */
async function prefill(window: HostnameWindow, hits: number): Promise<void> {
  const stub = workerEnv.RATE_LIMITER.getByName(siteTokenWindow(site, window))
  await runInDurableObject(stub, async (limiter) => {
    for (let i = 0; i < hits; i++) await limiter.tryAcquire(HOSTNAME_WINDOWS[window].limit, 3_600_000)
  })
}

function expectRefused(result: CallResult, window: string): void {
  expect(result.status, result.text).toBe(429)
  expect(result.body).toMatchObject({ code: 'rate_limited' })
  expect((result.body as { detail: string }).detail).toContain(`the ${window} window is full`)
  expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(3000)
}

describe('the status and list window', () => {
  it('should never spend probe or register, and answer the 3,601st status or list of an hour 429', async () => {
    const hostname = `shop.${customer}`
    expect((await hostnameCall('register', hostname)).status).toBe(200)
    await spend(600, (i) => (i % 2 ? hostnameCall('status', hostname) : hostnameCall('list')))
    expect((await hostnameCall('probe', hostname)).status).toBe(200)
    // A busy caller holds calls ahead for a moment; those it did not make go back before the window is filled.
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS + 500))
    await prefill('status', 2999)
    expect((await hostnameCall('status', hostname)).status).toBe(200)
    expectRefused(await hostnameCall('status', hostname), 'status')
    expectRefused(await hostnameCall('list'), 'status')
    expect((await hostnameCall('probe', hostname)).status).toBe(200)
    expect((await hostnameCall('register', `other.${customer}`)).status).toBe(200)
  }, 60_000)
})

describe('the remove window', () => {
  it('should keep removes out of the register budget and answer the 121st remove of an hour 429', async () => {
    await spend(60, (i) => hostnameCall('register', `h${i}.${customer}`), 200, 20)
    await spend(60, (i) => hostnameCall('remove', `h${i}.${customer}`), 200, 20)
    await spend(60, (i) => hostnameCall('register', `h${60 + i}.${customer}`), 200, 20)
    expectRefused(await hostnameCall('register', `last.${customer}`), 'register')
    await spend(60, (i) => hostnameCall('remove', `never-${i}.${customer}`), 404, 20)
    expectRefused(await hostnameCall('remove', `h60.${customer}`), 'remove')
  }, 60_000)
})

describe('the order of the checks', () => {
  it('should answer a caller over its register window 429 before it looks at the site, even one that does not exist', async () => {
    const admin = await adminSession()
    const caller = await userSession(admin, 'admin')
    const stub = workerEnv.RATE_LIMITER.getByName(`custom-hostnames:register:user:${caller.userId}`)
    await runInDurableObject(stub, async (limiter) => {
      for (let i = 0; i < HOSTNAME_WINDOWS.register.limit; i++)
        await limiter.tryAcquire(HOSTNAME_WINDOWS.register.limit, 3_600_000)
    })
    const unknownSite = { siteId: crypto.randomUUID(), hostname: `shop.${customer}` }
    expectRefused(await call('customHostnames.register', unknownSite, caller), 'register')
    // A caller under its window is told the site does not exist.
    const underWindow = await call('customHostnames.register', unknownSite, admin)
    expect(underWindow.status, underWindow.text).toBe(404)
  })
})

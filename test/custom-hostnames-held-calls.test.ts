import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { LEASE_FLOOR, type RateLimiter } from '../durable-objects/rate-limiter'
import { HOLD_MS } from '../src/custom-hostnames/held-calls'
import type { Env } from '../src/env'
import worker from '../src/index'
import { type SiteFixture, siteTokenWindow, siteWithToken } from './custom-hostnames/fixture'
import { FakeDoh } from './fakes/doh'
import { ORIGIN } from './helpers/http'
import { adminSession } from './helpers/principals'
import { countDuring } from './helpers/round-trips'

const workerEnv = env as unknown as Env
const HOUR_MS = 3_600_000

function limiter(name: string) {
  return workerEnv.RATE_LIMITER.getByName(name)
}

async function storedHits(name: string): Promise<number[]> {
  return runInDurableObject(
    limiter(name),
    (_object: RateLimiter, state) => state.storage.kv.get<number[]>('hits') ?? [],
  )
}

describe('a RateLimiter lease', () => {
  it('should record the held calls at the end of the hold, so they count as late as they may be made', async () => {
    const name = `lease-${crypto.randomUUID()}`
    const lease = await limiter(name).lease(100, 10_000, 16, 2_000, 1_000)
    expect(lease).toEqual({ allowed: true, retryAfterSeconds: 0, held: 15, heldUntil: 3_000 })
    expect(await storedHits(name)).toEqual([1_000, ...Array(15).fill(3_000)])
    // At 11,500 the call made at 1,000 has left the window; the held ones (maybe made at 3,000) have not.
    for (let i = 0; i < 85; i++)
      expect((await limiter(name).tryAcquire(100, 10_000, 11_500)).allowed).toBe(true)
    const refused = await limiter(name).tryAcquire(100, 10_000, 11_500)
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 2, at: 0 })
  })

  it(`should hold nothing once ${LEASE_FLOOR} or fewer calls would stay free, counting each call alone`, async () => {
    const name = `floor-${crypto.randomUUID()}`
    const limit = LEASE_FLOOR + 10
    const first = await limiter(name).lease(limit, HOUR_MS, 16, 2_000)
    expect(first.held).toBe(9)
    expect((await limiter(name).lease(limit, HOUR_MS, 16, 2_000)).held).toBe(0)
    expect(await storedHits(name)).toHaveLength(11)
  })

  it('should take back only as many unused held calls as it is given back', async () => {
    const name = `give-back-${crypto.randomUUID()}`
    const lease = await limiter(name).lease(100, HOUR_MS, 8, 2_000)
    await limiter(name).giveBack(lease.heldUntil, 3)
    expect(await storedHits(name)).toHaveLength(5)
  })
})

describe('calls held on an isolate', () => {
  let site: SiteFixture

  beforeEach(async () => {
    new FakeDoh().install()
    site = await siteWithToken(await adminSession())
  })

  const probe = (bindings: Env, ctx: ExecutionContext) =>
    worker.fetch(
      new Request(`${ORIGIN}/api/v1/customHostnames/probe`, {
        method: 'POST',
        headers: { authorization: `Bearer ${site.app.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ siteId: site.siteId, hostname: `app.${crypto.randomUUID().slice(0, 8)}.com` }),
      }),
      bindings,
      ctx,
    )

  it('should let a busy caller spend most calls without a RateLimiter round trip, and give back what it did not make', async () => {
    const statuses: number[] = []
    const { trips } = await countDuring(async (counted, ctx) => {
      for (let i = 0; i < 20; i++) statuses.push((await probe(counted, ctx)).status)
    })
    expect(statuses).toEqual(Array(20).fill(200))
    // Leases of 1, 2, 4, 8 and 16 calls: five round trips for twenty calls, while all come within the hold.
    expect(trips.durableObjects).toBeLessThanOrEqual(6)
    // countDuring waited for the calls handed to waitUntil: the eleven held calls not made went back.
    expect(await storedHits(siteTokenWindow(site, 'probe'))).toHaveLength(20)
  }, 20_000)

  it('should never spend a held call after its hold ended', async () => {
    const first = await countDuring(async (counted, ctx) => {
      for (let i = 0; i < 4; i++) expect((await probe(counted, ctx)).status).toBe(200)
    })
    expect(first.trips.durableObjects).toBe(3)
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS + 100))
    const later = await countDuring(async (counted, ctx) => {
      expect((await probe(counted, ctx)).status).toBe(200)
    })
    expect(later.trips.durableObjects).toBe(1)
  }, 20_000)
})

import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { forgetPrincipals } from '../src/auth/principal-cache'
import { forgetReplicaCopies } from '../src/db/replica-copy'
import type { Env } from '../src/env'
import { siteWithToken } from './custom-hostnames/fixture'
import { domainWorld } from './domains/fixture'
import { DOH_ORIGIN, FakeDoh } from './fakes/doh'
import { type Caller, ok } from './helpers/http'
import { outboundRequests } from './helpers/outbound'
import { adminSession, tokenFor } from './helpers/principals'
import { type CountedAnswer, countDuring, countTrips, type Trips } from './helpers/round-trips'
import { createProbe } from './probes/catalogue-fixture'
import { createStatusPage } from './status-pages/fixture'

// Each hot path's storage round trips, counted on the real routes with real principals. `sequential` is what a
// caller far from the database waits for: D1 and Durable Object calls in flight together count once, a batch
// counts once. The figures are exact, so a round trip added to (or taken off) a path fails here until the
// table of docs/performance.md says so too; the budgets are the ceilings those figures must stay under.

/** A read: at most two sequential round trips, the caller's authentication included. */
const READ_BUDGET = 2
/** A write: the authentication read and one batch. */
const WRITE_D1_BUDGET = 2

type Counted = Pick<Trips, 'sequential' | 'd1' | 'durableObjects'>
const counted = ({ sequential, d1, durableObjects }: Trips): Counted => ({ sequential, d1, durableObjects })

let admin: Caller
let bearer: Caller

beforeAll(async () => {
  admin = await adminSession()
  bearer = await tokenFor(admin, [
    'probes:view',
    'probes:manage',
    'domains:view',
    'domains:manage',
    'tokens:manage',
  ])
})

beforeEach(() => {
  new FakeDoh().install()
})

/**
 * One procedure call, counted with its authentication read: the isolate's short principal cache and its copies of
 * hot reads are emptied first, so each figure is what a caller pays on an isolate that has not seen its token or
 * its read in the last few seconds. `warm` keeps both: what the next call within their life pays.
 */
function rpc(name: string, input: unknown, caller: Caller, warm = false): Promise<CountedAnswer> {
  if (!warm) {
    forgetPrincipals()
    forgetReplicaCopies()
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (caller.token) headers.authorization = `Bearer ${caller.token}`
  if (caller.cookie) Object.assign(headers, { cookie: caller.cookie, origin: 'https://panel.test' })
  return countTrips(`/api/rpc/${name}`, { method: 'POST', headers, body: JSON.stringify(input) })
}

/** Fails with the answer's body unless it is a 200; the round trips of a failure say nothing. */
function answered(answer: CountedAnswer): Trips {
  expect(answer.status, answer.text).toBe(200)
  return answer.trips
}

/** A procedure read: on a session opened anywhere (no bookmark was sent), nothing on the binding itself. */
function expectRead(trips: Trips, measured: Counted): void {
  expect(counted(trips)).toEqual(measured)
  expect(trips.sequential).toBeLessThanOrEqual(READ_BUDGET)
  expect(trips.sessions).toEqual(['first-unconstrained'])
  expect(trips.outsideSession).toBe(0)
}

/** A procedure write: on a session opened on the primary, the authentication read and one batch. */
function expectWrite(trips: Trips, measured: Counted): void {
  expect(counted(trips)).toEqual(measured)
  expect(trips.d1).toBeLessThanOrEqual(WRITE_D1_BUDGET)
  expect(trips.sessions).toEqual(['first-primary'])
  expect(trips.outsideSession).toBe(0)
}

describe('the counter', () => {
  const select = (env: Env) => env.DB.withSession().prepare('select 1').all()

  it('should count awaited queries one by one, and a batch or queries sent together once', async () => {
    const { trips: oneByOne } = await countDuring(async (env) => {
      await select(env)
      await select(env)
    })
    expect(counted(oneByOne)).toEqual({ sequential: 2, d1: 2, durableObjects: 0 })
    const { trips: together } = await countDuring(async (env) => {
      await Promise.all([select(env), select(env), select(env)])
    })
    expect(counted(together)).toEqual({ sequential: 1, d1: 1, durableObjects: 0 })
    const { trips: batch } = await countDuring(async (env) => {
      const session = env.DB.withSession('first-primary')
      await session.batch([session.prepare('select 1'), session.prepare('select 2')])
    })
    expect(counted(batch)).toEqual({ sequential: 1, d1: 1, durableObjects: 0 })
    expect(batch.sessions).toEqual(['first-primary'])
  })

  it('should count a Durable Object call beside a query in the same round trip, and one after it in another', async () => {
    const live = (env: Env) => env.PROBE_MONITOR.getByName(crypto.randomUUID()).live()
    const { trips: beside } = await countDuring(async (env) => {
      await Promise.all([select(env), live(env)])
    })
    expect(counted(beside)).toEqual({ sequential: 1, d1: 1, durableObjects: 1 })
    const { trips: after } = await countDuring(async (env) => {
      await select(env)
      await live(env)
    })
    expect(counted(after)).toEqual({ sequential: 2, d1: 1, durableObjects: 1 })
  })

  it('should not count what was left running for waitUntil, nor a query on the binding as a session read', async () => {
    const { trips } = await countDuring(async (env, ctx) => {
      await env.DB.prepare('select 1').all()
      ctx.waitUntil(select(env))
    })
    expect(counted(trips)).toEqual({ sequential: 1, d1: 1, durableObjects: 0 })
    expect(trips.outsideSession).toBe(1)
  })
})

describe('paths that never wait on D1', () => {
  it('should record a heartbeat ping with one call to its ledger shard and no D1', async () => {
    const probe = await ok<{ heartbeatToken: string }>(
      'probes.create',
      { name: 'nightly', type: 'heartbeat', targetKind: 'external', target: 'nightly backup', config: {} },
      admin,
    )
    const path = `/api/heartbeat/${probe.heartbeatToken}`
    // A probe's first ping goes through its monitor, once in its life; every later one is the hot path.
    expect((await countTrips(path)).status).toBe(200)
    const ping = answered(await countTrips(path))
    expect(counted(ping)).toEqual({ sequential: 1, d1: 0, durableObjects: 1 })
  })

  it('should answer the changelog feed from memory once built, and the version without storage', async () => {
    answered(await countTrips('/api/v1/meta/changelog'))
    const feed = answered(await countTrips('/api/v1/meta/changelog'))
    expect(counted(feed)).toEqual({ sequential: 0, d1: 0, durableObjects: 0 })
    const version = answered(await countTrips('/api/v1/meta/version'))
    expect(counted(version)).toEqual({ sequential: 0, d1: 0, durableObjects: 0 })
  })
})

describe('hot reads: at most two sequential round trips, authentication included', () => {
  it('should answer auth.me with the authentication read alone, for a token and for a session', async () => {
    expectRead(answered(await rpc('auth.me', {}, bearer)), { sequential: 1, d1: 1, durableObjects: 0 })
    // A token this isolate authenticated moments ago costs no read at all.
    const again = await countTrips('/api/rpc/auth.me', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer.token}` },
      body: '{}',
    })
    expectRead(answered(again), { sequential: 0, d1: 0, durableObjects: 0 })
    expectRead(answered(await rpc('auth.me', {}, admin)), { sequential: 1, d1: 1, durableObjects: 0 })
  })

  it('should plan and show a custom hostname with the rate window beside the first read', async () => {
    const site = await siteWithToken(admin)
    const hostname = `shop.${crypto.randomUUID().slice(0, 8)}-customer.com`
    const input = { siteId: site.siteId, hostname }
    expectRead(answered(await rpc('customHostnames.probe', input, site.app)), {
      sequential: 2,
      d1: 2,
      durableObjects: 1,
    })
    await ok('customHostnames.register', input, site.app)
    // The first status looks the records up (at most a second) and stores the answer after answering.
    expectRead(answered(await rpc('customHostnames.status', input, site.app)), {
      sequential: 2,
      d1: 2,
      durableObjects: 1,
    })
    expect(outboundRequests().some((request) => request.url.startsWith(DOH_ORIGIN))).toBe(true)
    // Within the life of the principal and of the row's copy (which kept the lookup), only the rate window is asked.
    expectRead(answered(await rpc('customHostnames.status', input, site.app, true)), {
      sequential: 1,
      d1: 0,
      durableObjects: 1,
    })
    // Polling within the cache time on an isolate without those copies reads the stored answer.
    expectRead(answered(await rpc('customHostnames.status', input, site.app)), {
      sequential: 2,
      d1: 2,
      durableObjects: 1,
    })
  })

  it('should show a domain in one read after authentication', async () => {
    const world = await domainWorld()
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname: `www.${crypto.randomUUID().slice(0, 8)}.com`, driver: 'manual' },
      world.admin,
    )
    expectRead(answered(await rpc('domains.get', { id: domainId }, bearer)), {
      sequential: 2,
      d1: 2,
      durableObjects: 0,
    })
    expectRead(answered(await rpc('domains.get', { id: domainId }, bearer, true)), {
      sequential: 0,
      d1: 0,
      durableObjects: 0,
    })
  })

  it('should read a probe, its events, deliveries and live state together, and its history beside its row', async () => {
    const probe = await createProbe(admin, { enabled: false })
    expectRead(answered(await rpc('probes.get', { id: probe.id }, bearer)), {
      sequential: 2,
      d1: 2,
      durableObjects: 1,
    })
    const input = { id: probe.id, granularity: 'hourly', hours: 2160 }
    // The monitor (what D1's rollups lack yet) is asked beside D1's read.
    expectRead(answered(await rpc('probes.history', input, bearer)), {
      sequential: 2,
      d1: 2,
      durableObjects: 1,
    })
    // An id that is no probe is still a 404, in the same round trips.
    const missing = await rpc('probes.history', { ...input, id: crypto.randomUUID() }, bearer)
    expect(missing.status, missing.text).toBe(404)
  })

  it('should build the public status JSON in two reads on a miss, and answer from the edge cache after', async () => {
    const probe = await createProbe(admin, { enabled: false })
    const page = await createStatusPage(admin, {
      public: true,
      groups: [{ name: 'Web', probes: [{ probeId: probe.id, displayName: 'Website' }] }],
    })
    const path = `/api/v1/status/${page.slug}`
    const built = answered(await countTrips(path))
    expect(counted(built)).toEqual({ sequential: 2, d1: 2, durableObjects: 0 })
    expect(built.sequential).toBeLessThanOrEqual(READ_BUDGET)
    expect(built.sessions).toEqual(['first-unconstrained'])
    const cached = answered(await countTrips(path))
    expect(counted(cached)).toEqual({ sequential: 0, d1: 0, durableObjects: 0 })
  })
})

describe('writes: the authentication read and one batch', () => {
  it('should mint an API token in one batch', async () => {
    const trips = answered(await rpc('tokens.create', { name: 'ci', permissions: ['probes:view'] }, bearer))
    expectWrite(trips, { sequential: 2, d1: 2, durableObjects: 0 })
  })

  it("should create a probe in one batch, then hand it to its monitor (the sweep's record comes after the answer)", async () => {
    const input = {
      name: 'shop health',
      type: 'http',
      targetKind: 'external',
      target: 'https://status.probes-example.com/health',
      enabled: false,
    }
    const trips = answered(await rpc('probes.create', input, bearer))
    expectWrite(trips, { sequential: 3, d1: 2, durableObjects: 1 })
  })

  it('should create a status page in one batch', async () => {
    const input = { slug: `page-${crypto.randomUUID().slice(0, 8)}`, title: 'Status' }
    const trips = answered(await rpc('statusPages.create', input, bearer))
    expectWrite(trips, { sequential: 2, d1: 2, durableObjects: 0 })
  })

  it("should attach a domain with its reads of the site's chain, zones, claims and DNS default beside the authentication", async () => {
    const world = await domainWorld()
    const input = {
      siteId: world.site.siteId,
      hostname: `www.${crypto.randomUUID().slice(0, 8)}.com`,
      driver: 'manual',
    }
    const trips = answered(await rpc('domains.attach', input, bearer))
    expectWrite(trips, { sequential: 2, d1: 2, durableObjects: 0 })
  })

  it('should register a custom hostname with its reads beside the authentication, its rate window, then one batch', async () => {
    const site = await siteWithToken(admin)
    const input = { siteId: site.siteId, hostname: `shop.${crypto.randomUUID().slice(0, 8)}-customer.com` }
    const trips = answered(await rpc('customHostnames.register', input, site.app))
    expectWrite(trips, { sequential: 3, d1: 2, durableObjects: 1 })
    // Registering it again reads the row it holds in the same batch: the same round trips.
    const again = answered(await rpc('customHostnames.register', input, site.app))
    expectWrite(again, { sequential: 3, d1: 2, durableObjects: 1 })
  })
})

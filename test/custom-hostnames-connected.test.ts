import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { CALLBACK_PATHS } from '../src/agent-contract/v1'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { reportCertificates } from './helpers/agent-callback'
import { type Caller, call, ok, send } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'

const workerEnv = env as unknown as Env
const cf = cloudflareFake()
let admin: Caller
let sent: SentJob[]
let site: SiteFixture

beforeEach(async () => {
  fakeOrigin(cf.origin, cf.handle)
  cf.rateLimitRetryAfter = null
  sent = captureJobs()
  admin = await adminSession()
  site = await siteWithToken(admin)
})

async function connectAccount(name: string): Promise<string> {
  const account = await ok<{ id: string }>(
    'accounts.create',
    {
      kind: 'dns',
      name: `${name}-${crypto.randomUUID().slice(0, 6)}`,
      provider: 'provider_a',
      token: cf.token,
    },
    admin,
  )
  return account.id
}

describe('custom hostnames in a connected zone (provider_a)', () => {
  it('should create the record through the provider, turn active, then delete only that record', async () => {
    const zone = zoneName('connected')
    cf.addZone(zone)
    await connectAccount('cf')
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone] }, admin)
    const hostname = `shop.${zone}`
    const registered = await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    expect(registered).toMatchObject({ tier: 'connected', state: 'pending' })
    await drainJobs(sent, 'custom-hostname.')
    expect(cf.records.filter((r) => r.name === hostname).map((r) => r.type)).toEqual(['CNAME'])
    expect(await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'active',
      tier: 'connected',
    })
    cf.records.push({
      id: 'customer-own',
      zoneId: cf.zones.at(-1)?.id ?? '',
      type: 'TXT',
      name: hostname,
      content: 'v=1',
      ttl: 300,
    })
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(cf.records.filter((r) => r.name === hostname).map((r) => r.id)).toEqual(['customer-own'])
    const gone = await call('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(gone.status).toBe(404)
  })

  it('should refuse to guess when two accounts hold the zone', async () => {
    const zone = zoneName('ambiguous')
    cf.addZone(zone)
    await connectAccount('first')
    await connectAccount('second')
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: ['*'] }, admin)
    const registered = await ok(
      'customHostnames.register',
      { siteId: site.siteId, hostname: `a.${zone}` },
      site.app,
    )
    expect(registered).toMatchObject({ state: 'instructions', reason: 'ambiguous-zone' })
    expect(sent.map((job) => job.body.type)).toEqual(['route.reconcile'])
  })

  it('should fail when the provider refuses the write, with its words for operators', async () => {
    const zone = zoneName('refused')
    const held = cf.addZone(zone)
    await connectAccount('refused')
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone] }, admin)
    const hostname = `x.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    cf.zones.splice(cf.zones.indexOf(held), 1)
    await drainJobs(sent, 'custom-hostname.')
    const status = await ok<{ state: string; failureRemedy?: string }>(
      'customHostnames.status',
      { siteId: site.siteId, hostname },
      site.app,
    )
    expect(status.state).toBe('failed')
    expect(status.failureRemedy).toContain(`CNAME ${hostname}`)
    const forOperator = await ok<{ failureRemedy?: string }>(
      'customHostnames.status',
      { siteId: site.siteId, hostname },
      admin,
    )
    expect(forOperator.failureRemedy).toMatch(/provider_a/)
  })
})

describe('custom-hostnames rate limits', () => {
  it('should answer the 601st probe of an hour 429 with Retry-After, and leave the register budget alone', async () => {
    const input = { siteId: site.siteId, hostname: 'shop.limited-customer.com' }
    for (let sent = 0; sent < 600; sent += 50) {
      const results = await Promise.all(
        Array.from({ length: 50 }, () => call('customHostnames.probe', input, site.app)),
      )
      const refused = results.find((result) => result.status !== 200)
      if (refused) throw new Error(`a probe before the 601st answered ${refused.status}: ${refused.text}`)
    }
    const over = await call('customHostnames.probe', input, site.app)
    expect(over.status, over.text).toBe(429)
    expect(over.body).toMatchObject({ code: 'rate_limited' })
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3000)
    const register = await call('customHostnames.register', input, site.app)
    expect(register.status, register.text).toBe(200)
  }, 60_000)

  it('should answer the 121st register of an hour 429', async () => {
    for (let i = 0; i < 120; i++) {
      const result = await call(
        'customHostnames.register',
        { siteId: site.siteId, hostname: `h${i}.budget-customer.com` },
        site.app,
      )
      if (result.status !== 200)
        throw new Error(`register ${i + 1} answered ${result.status}: ${result.text}`)
    }
    const over = await call(
      'customHostnames.register',
      { siteId: site.siteId, hostname: 'last.budget-customer.com' },
      site.app,
    )
    expect(over.status, over.text).toBe(429)
    expect(
      await call(
        'customHostnames.probe',
        { siteId: site.siteId, hostname: 'p.budget-customer.com' },
        site.app,
      ),
    ).toMatchObject({ status: 200 })
  }, 60_000)

  it('should give a Retry-After at which a retry succeeds, never earlier', async () => {
    const stub = workerEnv.RATE_LIMITER.get(
      workerEnv.RATE_LIMITER.idFromName(`window-${crypto.randomUUID()}`),
    )
    await runInDurableObject(stub, async (limiter) => {
      const hour = 3_600_000
      const t0 = 1_000_000_000_000
      for (let i = 0; i < 3; i++)
        expect((await limiter.tryAcquire(3, hour, t0 + i * 1000)).allowed).toBe(true)
      const refused = await limiter.tryAcquire(3, hour, t0 + 10_500)
      expect(refused.allowed).toBe(false)
      const at = t0 + 10_500 + refused.retryAfterSeconds * 1000
      expect((await limiter.tryAcquire(3, hour, at - 1000)).allowed).toBe(false)
      expect((await limiter.tryAcquire(3, hour, at)).allowed).toBe(true)
    })
  })
})

describe('certificate observations from nodes', () => {
  it('should keep observations of hostnames routed to the node and flip cert.issued', async () => {
    const hostname = 'tls.observed-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const notAfter = new Date(Date.now() + 80 * 86_400_000).toISOString()
    const observedAt = new Date().toISOString()
    const observation = { notAfter, serial: '0a1b', issuer: 'pebble', observedAt }
    const answer = await reportCertificates(site.nodeId, {
      observations: [
        { hostname, ...observation },
        { hostname: 'not.routed-here.com', ...observation },
      ],
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ accepted: 1, ignored: 1 })
    expect(await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      cert: { issued: true, notAfter, observedAt },
    })
  })

  it('should answer 401 to an unsigned, wrongly signed or unknown-node report', async () => {
    const body = { observations: [] }
    expect((await reportCertificates(site.nodeId, body, 'another-secret-0123456')).status).toBe(401)
    expect((await reportCertificates(crypto.randomUUID(), body)).status).toBe(401)
    const unsigned = await send(CALLBACK_PATHS.certificates, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-node-id': site.nodeId },
      body: JSON.stringify(body),
    })
    expect(unsigned.status).toBe(401)
  })
})

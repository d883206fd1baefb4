import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Vhost } from '../src/agent-contract/v1'
import { db } from '../src/db/client'
import { forgetReplicaCopies } from '../src/db/replica-copy'
import { customHostnames } from '../src/db/schema/custom-hostnames'
import type { Env } from '../src/env'
import { reconcileNodeOfHostname } from '../src/routes/reconcile-node'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'
import { adminSession } from './helpers/principals'

// A node may obtain a custom hostname's certificate only once the panel verified its records (or the app's ask
// URL says so), and the edge state pushed to the node says which.

interface Status {
  state: string
  records: { value: string }[]
  dns: { resolves: boolean; checkedAt: string }
}

const workerEnv = env as unknown as Env
const cf = cloudflareFake()
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let agent: FakeNodeAgent
let doh: FakeDoh

beforeEach(async () => {
  sent = captureJobs()
  doh = new FakeDoh().install()
  fakeOrigin(cf.origin, cf.handle)
  admin = await adminSession()
  site = await siteWithToken(admin)
  const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
  agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
})

const register = (hostname: string) =>
  ok<{ state: string; records: { value: string }[] }>(
    'customHostnames.register',
    { siteId: site.siteId, hostname },
    site.app,
  )
const status = (hostname: string) =>
  ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const settings = (input: Record<string, unknown>) =>
  call('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [], ...input }, admin)
const reconciles = () => sent.filter((job) => job.body.type === 'route.reconcile')

/** Runs the queued reconciles, then answers the vhost the node serves for the hostname. */
async function served(hostname: string): Promise<Vhost | undefined> {
  await drainJobs(sent, 'route.')
  return agent.edge.vhosts.find((vhost) => vhost.hostname === hostname)
}

describe('issuable in the pushed edge state', () => {
  it('should mark an instructions hostname issuable only once status saw its records resolve', async () => {
    const hostname = 'shop.issuable-customer.com'
    const registered = await register(hostname)
    expect(registered.state).toBe('instructions')
    expect(await served(hostname)).toEqual({
      hostname,
      upstream: '10.0.0.5:80',
      issuer: 'letsencrypt',
      issuable: false,
    })

    expect((await status(hostname)).dns.resolves).toBe(false)
    await vi.waitFor(async () => {
      const [row] = await db(workerEnv.DB)
        .select()
        .from(customHostnames)
        .where(eq(customHostnames.hostname, hostname))
      expect(row?.dnsCheckedAt).not.toBeNull()
    })
    expect(reconciles()).toEqual([])

    await db(workerEnv.DB)
      .update(customHostnames)
      .set({ dnsCheckedAt: new Date(Date.now() - 60_000) })
      .where(eq(customHostnames.hostname, hostname))
    // The minute this stands in for has also outlived the isolate's copy of the row.
    forgetReplicaCopies()
    doh.set(hostname, 'CNAME', [`${registered.records[0]?.value}.`])
    expect((await status(hostname)).dns.resolves).toBe(true)
    await vi.waitFor(() => expect(reconciles()).toHaveLength(1))
    expect(await served(hostname)).toMatchObject({ hostname, issuable: true })
  })

  it('should mark a connected hostname issuable once it is active, not while pending', async () => {
    const zone = zoneName('issuable')
    cf.addZone(zone)
    await ok(
      'accounts.create',
      { kind: 'dns', name: `cf-${zone}`, provider: 'provider_a', token: cf.token },
      admin,
    )
    expect((await settings({ allowedZones: [zone] })).status).toBe(200)
    const hostname = `shop.${zone}`
    expect((await register(hostname)).state).toBe('pending')
    expect(await served(hostname)).toMatchObject({ issuable: false })

    await drainJobs(sent, 'custom-hostname.')
    expect((await status(hostname)).state).toBe('active')
    // What the write job calls once the row turned active.
    await reconcileNodeOfHostname(workerEnv, db(workerEnv.DB), hostname)
    expect(await served(hostname)).toMatchObject({ issuable: true })
  })
})

describe('the ask URL', () => {
  it('should push the ask URL with every hostname of the site, keep it when absent and clear it on null', async () => {
    const hostname = 'shop.asking-customer.com'
    await register(hostname)
    await drainJobs(sent, 'route.')
    const askUrl = 'https://app.asking.example/tls/ask?key=k1'
    const set = await settings({ askUrl })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({ askUrl })
    expect(await served(hostname)).toMatchObject({ hostname, issuable: false, askUrl })
    expect(await ok('customHostnames.settings.get', { siteId: site.siteId }, admin)).toEqual({
      siteId: site.siteId,
      allowedZones: [],
      warning: null,
      askUrl,
      removeStaleAfterDays: null,
    })

    expect((await settings({})).body).toMatchObject({ askUrl })
    expect(reconciles()).toEqual([])

    expect((await settings({ askUrl: null })).body).toMatchObject({ askUrl: null })
    expect(await served(hostname)).not.toHaveProperty('askUrl')
  })

  it('should refuse an ask URL that is not a public https URL, naming askUrl', async () => {
    for (const askUrl of [
      'not a url',
      'ftp://app.example.com/ask',
      'http://app.example.com/ask',
      'https://10.0.0.7/ask',
    ]) {
      const refused = await settings({ askUrl })
      expect(refused.status, askUrl).toBe(400)
      expect(refused.body, askUrl).toMatchObject({ code: 'validation_failed', issues: [{ path: 'askUrl' }] })
    }
    expect(await ok('customHostnames.settings.get', { siteId: site.siteId }, admin)).toMatchObject({
      askUrl: null,
    })
  })
})

describe('dns.resolves with a slow resolver', () => {
  it('should answer false checked now, never the older true, and store the late answer', async () => {
    const hostname = 'shop.slow-resolver-customer.com'
    const registered = await register(hostname)
    doh.set(hostname, 'CNAME', [`${registered.records[0]?.value}.`])
    expect((await status(hostname)).dns.resolves).toBe(true)
    const stale = new Date(Date.now() - 60_000)
    await db(workerEnv.DB)
      .update(customHostnames)
      .set({ dnsCheckedAt: stale })
      .where(eq(customHostnames.hostname, hostname))
    // The minute this stands in for has also outlived the isolate's copy of the row.
    forgetReplicaCopies()

    doh.delayMs = 2_000
    const before = Date.now()
    const slow = await status(hostname)
    expect(slow.dns.resolves).toBe(false)
    expect(Date.parse(slow.dns.checkedAt)).toBeGreaterThanOrEqual(before)

    await vi.waitFor(
      async () => {
        const [row] = await db(workerEnv.DB)
          .select()
          .from(customHostnames)
          .where(eq(customHostnames.hostname, hostname))
        expect(row?.dnsCheckedAt?.getTime()).toBeGreaterThan(stale.getTime())
      },
      { timeout: 10_000, interval: 100 },
    )
    expect((await status(hostname)).dns).toMatchObject({ resolves: true })
    // The diagnosis follows the CNAME to its target: two rounds of lookups at two seconds each.
  }, 20_000)
})

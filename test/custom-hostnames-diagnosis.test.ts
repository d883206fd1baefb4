import { runInDurableObject, SELF } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { HOSTNAME_WINDOWS } from '../src/custom-hostnames/rate-limits'
import type { Diagnosis, Verdict } from '../src/diagnosis/schema'
import type { Env } from '../src/env'
import { type SiteFixture, siteTokenWindow, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { adminSession } from './helpers/principals'

// Why a hostname is not green yet, read from the panel's DoH resolver (faked) through status and check.

interface Status {
  state: string
  records: { type: string; value: string }[]
  dns: { resolves: boolean; checkedAt: string }
  cert: { issued: boolean }
  diagnosis: Diagnosis
}

let admin: Caller
let doh: FakeDoh
let sent: SentJob[]

beforeEach(async () => {
  sent = captureJobs()
  doh = new FakeDoh().install()
  admin = await adminSession()
})

const register = (site: SiteFixture, hostname: string) =>
  ok<{ state: string; records: { type: string; value: string }[] }>(
    'customHostnames.register',
    { siteId: site.siteId, hostname },
    site.app,
  )
const status = (site: SiteFixture, hostname: string) =>
  ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
const check = (site: SiteFixture, hostname: string) =>
  ok<Status>('customHostnames.check', { siteId: site.siteId, hostname }, site.app)
const kinds = (verdicts: Verdict[]) => verdicts.map((v) => [v.kind, v.type, ...v.observed])

/** A registered external hostname on a fresh site (a CNAME plan), and its planned target. */
async function cnameHostname(label: string) {
  const site = await siteWithToken(admin)
  const hostname = `shop.${zoneName(label)}`
  const target = (await register(site, hostname)).records[0]?.value ?? ''
  return { site, hostname, target }
}

/** A registered external apex on a site whose node has only an IPv4 address (an A plan). */
async function apexHostname(label: string) {
  const site = await siteWithToken(admin, { dnsTarget: null, publicIpv4: '203.0.113.10' })
  const hostname = zoneName(label)
  expect((await register(site, hostname)).records).toMatchObject([{ type: 'A', value: '203.0.113.10' }])
  return { site, hostname }
}

describe('verdicts per planned record', () => {
  it('should answer ok with the CNAME and its TTL as the resolver answered it', async () => {
    const { site, hostname, target } = await cnameHostname('diag-ok')
    doh.set(hostname, 'CNAME', [`${target}.`], 0, 120)
    doh.set(target, 'A', ['203.0.113.10'], 0, 600)
    const answer = await status(site, hostname)
    expect(answer.dns.resolves).toBe(true)
    expect(kinds(answer.diagnosis.verdicts)).toEqual([['ok', 'CNAME', target]])
    expect(answer.diagnosis.expected).toEqual([{ type: 'CNAME', name: hostname, value: target, ttl: 300 }])
    expect(answer.diagnosis.observed).toMatchObject([
      {
        source: 'resolver',
        rcode: 'NOERROR',
        error: null,
        records: [
          { type: 'CNAME', name: hostname, value: target, ttl: 120 },
          { type: 'A', name: target, value: '203.0.113.10', ttl: 600 },
        ],
      },
    ])
    const { checkedAt, nextCheckAfter } = answer.diagnosis
    expect(Date.parse(nextCheckAfter) - Date.parse(checkedAt)).toBe(120_000)
  })

  it('should answer wrong with the CNAME found, and what to change, never fixable outside the panel', async () => {
    const { site, hostname, target } = await cnameHostname('diag-wrong')
    doh.set(hostname, 'CNAME', ['old-cdn.example.net.'], 0, 5)
    const { diagnosis, dns } = await status(site, hostname)
    expect(dns.resolves).toBe(false)
    expect(diagnosis.verdicts).toMatchObject([
      { kind: 'wrong', type: 'CNAME', expected: target, observed: ['old-cdn.example.net'], fixable: false },
    ])
    expect(diagnosis.verdicts[0]?.detail).toContain(`Change it to CNAME ${target}`)
    // A TTL shorter than 30 s still waits 30 s.
    expect(Date.parse(diagnosis.nextCheckAfter) - Date.parse(diagnosis.checkedAt)).toBe(30_000)
  })

  it('should answer missing, and the AAAA and A still at the name in the way of the CNAME', async () => {
    const { site, hostname } = await cnameHostname('diag-missing')
    doh.set(hostname, 'A', ['198.51.100.7'])
    doh.set(hostname, 'AAAA', ['2001:db8::7'])
    const { diagnosis } = await status(site, hostname)
    expect(kinds(diagnosis.verdicts)).toEqual([
      ['missing', 'CNAME'],
      ['in-the-way', 'A', '198.51.100.7'],
      ['in-the-way', 'AAAA', '2001:db8::7'],
    ])
    expect(diagnosis.verdicts.every((v) => !v.fixable)).toBe(true)
    expect(diagnosis.verdicts[2]?.detail).toContain('Delete it at your DNS provider')
  })

  it('should name an AAAA beside the planned A as in the way (IPv6 visitors and the CA go elsewhere)', async () => {
    const { site, hostname } = await apexHostname('diag-aaaa')
    doh.set(hostname, 'A', ['203.0.113.10', '198.51.100.7'])
    doh.set(hostname, 'AAAA', ['2001:db8::7'])
    const { diagnosis, dns } = await status(site, hostname)
    expect(dns.resolves).toBe(true)
    expect(kinds(diagnosis.verdicts)).toEqual([
      ['ok', 'A', '203.0.113.10'],
      ['in-the-way', 'A', '198.51.100.7'],
      ['in-the-way', 'AAAA', '2001:db8::7'],
    ])
    expect(diagnosis.verdicts[2]?.detail).toMatch(/IPv6.*certificate is refused/)
  })

  it('should answer wrong with every address found when none is the planned one', async () => {
    const { site, hostname } = await apexHostname('diag-wrong-a')
    doh.set(hostname, 'A', ['198.51.100.7', '198.51.100.8'])
    const { diagnosis } = await status(site, hostname)
    expect(kinds(diagnosis.verdicts)).toEqual([['wrong', 'A', '198.51.100.7', '198.51.100.8']])
  })

  it('should name an _acme-challenge record the node did not make', async () => {
    const { site, hostname, target } = await cnameHostname('diag-acme')
    doh.set(hostname, 'CNAME', [`${target}.`])
    doh.set(`_acme-challenge.${hostname}`, 'CNAME', ['dcv.other-cdn.example.net.'])
    const { diagnosis } = await status(site, hostname)
    expect(kinds(diagnosis.verdicts)).toEqual([
      ['ok', 'CNAME', target],
      ['stale-acme-challenge', 'CNAME', 'dcv.other-cdn.example.net'],
    ])
    expect(diagnosis.verdicts[1]).toMatchObject({ name: `_acme-challenge.${hostname}`, fixable: false })
  })
})

describe('a resolver that gives nothing to judge by', () => {
  it('should answer resolver-failed, never missing, for an HTTP error and for SERVFAIL', async () => {
    const { site, hostname } = await cnameHostname('diag-failed')
    doh.httpStatus = 503
    const down = await check(site, hostname)
    expect(kinds(down.diagnosis.verdicts)).toEqual([['resolver-failed', 'CNAME']])
    expect(down.diagnosis.observed[0]).toMatchObject({
      rcode: null,
      error: expect.stringContaining('HTTP 503'),
    })
    doh.httpStatus = null
    doh.set(hostname, 'CNAME', [], 2)
    const servfail = await check(site, hostname)
    expect(kinds(servfail.diagnosis.verdicts)).toEqual([['resolver-failed', 'CNAME']])
    expect(servfail.diagnosis.observed[0]).toMatchObject({ rcode: 'SERVFAIL', records: [] })
    expect(servfail.dns.resolves).toBe(false)
  })
})

describe('the 30 s reuse and check', () => {
  it('should reuse the stored diagnosis in status, read anew in check, and store what check read', async () => {
    const { site, hostname, target } = await cnameHostname('diag-cache')
    const first = await status(site, hostname)
    expect(kinds(first.diagnosis.verdicts)).toEqual([['missing', 'CNAME']])
    doh.set(hostname, 'CNAME', [`${target}.`])
    const reused = await status(site, hostname)
    expect(reused.diagnosis).toEqual(first.diagnosis)
    expect(reused.dns.resolves).toBe(false)

    const checked = await check(site, hostname)
    expect(kinds(checked.diagnosis.verdicts)).toEqual([['ok', 'CNAME', target]])
    expect(checked.dns).toEqual({ resolves: true, checkedAt: checked.diagnosis.checkedAt })
    const after = await status(site, hostname)
    expect(after.diagnosis).toEqual(checked.diagnosis)
    expect(after.dns.resolves).toBe(true)
  })

  it('should answer check over REST too, and audit it', async () => {
    const { site, hostname } = await cnameHostname('diag-rest')
    const answer = await call<Status>(
      'customHostnames.check',
      { siteId: site.siteId, hostname },
      site.app,
      'rest',
    )
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.diagnosis.verdicts[0]?.kind).toBe('missing')
    const audit = await ok<{ entries: { action: string; detail: Record<string, unknown> }[] }>(
      'audit.list',
      { action: 'custom-hostname.check' },
      admin,
    )
    expect(audit.entries.some((e) => e.detail.hostname === hostname)).toBe(true)
  })

  it('should spend the status window: a full one refuses check with 429 naming it', async () => {
    const { site, hostname } = await cnameHostname('diag-window')
    const limiter = (env as unknown as Env).RATE_LIMITER.getByName(siteTokenWindow(site, 'status'))
    await runInDurableObject(limiter, async (stub) => {
      for (let i = 0; i < HOSTNAME_WINDOWS.status.limit; i++)
        await stub.tryAcquire(HOSTNAME_WINDOWS.status.limit, 3_600_000)
    })
    const refused = await call('customHostnames.check', { siteId: site.siteId, hostname }, site.app)
    expect(refused.status, refused.text).toBe(429)
    expect(refused.text).toContain('the status window is full')
  })

  it("should answer 404 for another site's hostname and 403 for another site's id", async () => {
    const theirs = await cnameHostname('diag-theirs')
    const mine = await siteWithToken(admin)
    const foreign = await call(
      'customHostnames.check',
      { siteId: mine.siteId, hostname: theirs.hostname },
      mine.app,
    )
    expect(foreign.status, foreign.text).toBe(404)
    const elsewhere = await call(
      'customHostnames.check',
      { siteId: theirs.site.siteId, hostname: theirs.hostname },
      mine.app,
    )
    expect(elsewhere.status, elsewhere.text).toBe(403)
  })
})

describe('check asks the node to issue', () => {
  async function routed(label: string) {
    const world = await cnameHostname(label)
    const node = await ok<{ agentUrl: string }>('nodes.get', { id: world.site.nodeId }, admin)
    const agent = new FakeNodeAgent(node.agentUrl, 'agent-secret-0123456789').install()
    await drainJobs(sent, 'route.')
    return { ...world, agent }
  }
  const primes = (agent: FakeNodeAgent) =>
    agent.calls.filter((c) => c.path === '/v2/certificates/prime').map((c) => c.body)

  it('should prime once DNS is right and no certificate is served, then show the certificate', async () => {
    const { site, hostname, target, agent } = await routed('diag-prime')
    await check(site, hostname)
    expect(primes(agent)).toEqual([])
    doh.set(hostname, 'CNAME', [`${target}.`])
    await drainJobs(sent, 'route.')
    const checked = await check(site, hostname)
    expect(checked.dns.resolves).toBe(true)
    await vi.waitFor(() => expect(primes(agent)).toEqual([{ hostname }]), { timeout: 5_000 })
    await vi.waitFor(async () => expect((await check(site, hostname)).cert.issued).toBe(true), {
      timeout: 5_000,
    })
    // A certificate is served now: a check asks nothing more.
    expect(primes(agent)).toHaveLength(1)
  })
})

describe('the OpenAPI document', () => {
  it('should describe both check routes and the diagnosis in status and domains.get', async () => {
    const doc = (await (await SELF.fetch('https://panel.test/api/v1/openapi.json')).json()) as {
      paths: Record<string, { post?: { operationId: string } }>
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> }
    }
    expect(doc.paths['/api/v1/customHostnames/check']?.post?.operationId).toBe('customHostnames.check')
    expect(doc.paths['/api/v1/domains/check']?.post?.operationId).toBe('domains.check')
    expect(doc.paths['/api/rpc/customHostnames.check']?.post).toBeDefined()
    const { schemas } = doc.components
    expect(schemas.CustomHostnameStatus?.properties?.diagnosis).toBeDefined()
    expect(schemas.DomainWithNextStep?.properties?.diagnosis).toBeDefined()
    expect(Object.keys(schemas.DiagnosisVerdict?.properties ?? {})).toEqual(
      expect.arrayContaining(['kind', 'fixable', 'detail', 'observed']),
    )
  })
})

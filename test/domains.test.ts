import { beforeEach, describe, expect, it } from 'vitest'
import { domainSweepTask } from '../src/domains/sweep-cron'
import { type SiteFixture, siteWithToken, zoneName } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import {
  ageStep,
  type DomainRow,
  getDomain,
  runJobsUntil,
  stepOf,
  stepsOf,
  workerEnv,
} from './domains/fixture'
import { FakeDoh } from './fakes/doh'
import { FakeNodeAgent } from './fakes/node-agent'
import { FakePowerDns } from './fakes/powerdns'
import { type Caller, call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { adminSession, operatorSession, tokenFor } from './helpers/principals'

const boxes = [
  new FakePowerDns('https://pdns-a.domains.test', 'domains-key-a'),
  new FakePowerDns('https://pdns-b.domains.test', 'domains-key-b'),
]
const AGENT_SECRET = 'agent-secret-0123456789'
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let agent: FakeNodeAgent
let doh: FakeDoh
let zone: string
let zoneId: string
let target: string
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  doh = new FakeDoh().install()
  sent = captureJobs()
  admin = await adminSession()
  if (!enrolled) {
    await enrollBoxes(admin, 'domains', boxes)
    enrolled = true
  }
  site = await siteWithToken(admin)
  const node = await ok<{ agentUrl: string; dnsTarget: string }>('nodes.get', { id: site.nodeId }, admin)
  target = node.dnsTarget
  agent = new FakeNodeAgent(node.agentUrl, AGENT_SECRET).install()
  zone = zoneName('domains')
  zoneId = (await ok<{ id: string }>('dnsServers.zones.create', { name: zone }, admin)).id
})

const attach = (input: Record<string, unknown>, caller: Caller = admin) =>
  ok<{ domainId: string; hostname: string }>('domains.attach', { siteId: site.siteId, ...input }, caller)
const everything = () => drainJobs(sent, '', 40)

describe('the programmatic onboarding sequence (selfhosted)', () => {
  it('should go green: upsert the record, attach, poll get until verified and issued', async () => {
    // Exactly the permissions the contract names for the sequence.
    const token = await tokenFor(admin, ['domains:view', 'domains:manage', 'settings:view'])
    const hostname = `www.${zone}`
    const upsert = await call(
      'dnsServers.zones.records.upsert',
      { id: zoneId, name: hostname, type: 'CNAME', ttl: 300, values: [target] },
      token,
      'rest',
    )
    expect(upsert.status, upsert.text).toBe(200)
    const attached = await call<{ domainId: string; hostname: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname, driver: 'selfhosted' },
      token,
      'rest',
    )
    expect(attached.status, attached.text).toBe(200)
    expect(attached.body).toEqual({ domainId: expect.any(String), hostname })
    const id = attached.body.domainId
    const first = await call<DomainRow>('domains.get', { id }, token, 'rest')
    expect(first.body).toMatchObject({
      hostname,
      siteId: site.siteId,
      driver: 'selfhosted',
      issuer: 'pebble',
      dnsState: 'pending',
      certState: 'none',
      proxied: false,
      routeId: null,
      failureRemedy: null,
      certExpiresAt: null,
      nextStep: null,
    })
    await everything()
    const green = await call<DomainRow>('domains.get', { id }, token, 'rest')
    expect(green.body).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
      failureRemedy: null,
      routeId: expect.any(String),
      nextStep: { title: expect.stringMatching(/backups/i), detail: expect.any(String) },
    })
    expect(stepsOf(green.body)).toEqual([
      ['driver-check', 'passed'],
      ['dns-write', 'passed'],
      ['dns-verify', 'passed'],
      ['route-setup', 'passed'],
      ['certificate', 'passed'],
      ['smoke-test', 'passed'],
    ])
    // The record was there already: the panel counted it and wrote nothing.
    expect(green.body.verification[1]?.detail).toMatch(/already/)
    expect(green.body.certExpiresAt).toBe(agent.certificates.get(hostname)?.notAfter)
    expect(agent.edge.vhosts).toEqual([
      { hostname, upstream: '10.0.0.5:80', issuer: 'pebble', issuable: true },
    ])
    const routes = await ok<{ id: string; status: string; hostname: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes).toEqual([expect.objectContaining({ id: green.body.routeId, hostname, status: 'active' })])
    // The sequence is idempotent: the same calls again change nothing.
    const again = await call('domains.attach', { siteId: site.siteId, hostname }, token, 'rest')
    expect(again.body).toEqual({ domainId: id, hostname })
    expect(sent).toEqual([])
    expect((await getDomain(id, admin)).dnsState).toBe('verified')
    // Records go with domains:manage; the zones themselves and DNSSEC stay settings:edit.
    const scratch = `scratch.${zone}`
    const written = await call(
      'dnsServers.zones.upsertRecord',
      { id: zoneId, name: scratch, type: 'TXT', ttl: 300, values: ['onboarding'] },
      token,
    )
    expect(written.status, written.text).toBe(200)
    const deleted = await call(
      'dnsServers.zones.deleteRecord',
      { id: zoneId, name: scratch, type: 'TXT' },
      token,
    )
    expect(deleted.status, deleted.text).toBe(200)
    for (const [name, input] of [
      ['dnsServers.zones.create', { name: zoneName('onboarding') }],
      ['dnsServers.zones.setDnssec', { id: zoneId, enabled: true }],
    ] as const) {
      const refused = await call(name, input, token)
      expect(refused.status, `${name}: ${refused.text}`).toBe(403)
    }
  })

  it('should write the record itself when the zone lacks it, and list the domain with the target', async () => {
    const hostname = `shop.${zone}`
    const { domainId } = await attach({ hostname, driver: 'selfhosted', issuer: 'letsencrypt' })
    await everything()
    for (const box of boxes) expect(box.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    expect(agent.edge.vhosts).toEqual([
      { hostname, upstream: '10.0.0.5:80', issuer: 'letsencrypt', issuable: true },
    ])
    const listed = await ok<{ domains: DomainRow[]; target: string | null }>(
      'domains.list',
      { siteId: site.siteId },
      admin,
    )
    expect(listed.target).toBe(target)
    expect(listed.domains.map((d) => [d.id, d.dnsState, d.certState])).toEqual([
      [domainId, 'verified', 'issued'],
    ])
  })
})

describe('domains.attach input and errors', () => {
  it('should answer 404 for an unknown site, 400 naming the field, and write nothing', async () => {
    const unknown = await call(
      'domains.attach',
      {
        siteId: crypto.randomUUID(),
        hostname: `a.${zone}`,
      },
      admin,
    )
    expect(unknown.status, unknown.text).toBe(404)
    for (const [input, field] of [
      [{ hostname: 'Shop.Example.com' }, 'hostname'],
      [{ hostname: `a.${zone}`, driver: 'ftp' }, 'driver'],
      [{ hostname: `a.${zone}`, issuer: 'zerossl' }, 'issuer'],
      [{ hostname: 'a.not-hosted-here.com', driver: 'selfhosted' }, 'driver'],
      [{ hostname: `a.${zone}`, driver: 'manual', proxied: true }, 'proxied'],
      [{ hostname: `a.${zone}`, driver: 'provider_b' }, 'driver'],
    ] as const) {
      const result = await call('domains.attach', { siteId: site.siteId, ...input }, admin)
      expect(result.status, result.text).toBe(400)
      expect(result.body).toMatchObject({ code: 'validation_failed', issues: [{ path: field }] })
    }
    expect(await ok('domains.list', { siteId: site.siteId }, admin)).toMatchObject({ domains: [] })
    expect(sent).toEqual([])
  })

  it('should answer 409 when the site has nothing to point the hostname at', async () => {
    const bare = await siteWithToken(admin, { dnsTarget: null, publicIpv4: null })
    const result = await call('domains.attach', { siteId: bare.siteId, hostname: `a.${zone}` }, admin)
    expect(result.status, result.text).toBe(409)
    expect(await ok('domains.list', { siteId: bare.siteId }, admin)).toEqual({
      domains: [],
      nextCursor: null,
      target: null,
    })
  })

  it('should pick selfhosted for a hostname in a self-hosted zone and manual otherwise', async () => {
    const hosted = await attach({ hostname: `x.${zone}` })
    const elsewhere = await attach({ hostname: `x.${zoneName('external')}` })
    expect((await getDomain(hosted.domainId, admin)).driver).toBe('selfhosted')
    expect((await getDomain(elsewhere.domainId, admin)).driver).toBe('manual')
  })

  it('should be idempotent for the same site and hostname and audit domain.attach', async () => {
    const hostname = `same.${zone}`
    const first = await attach({ hostname })
    const queued = sent.length
    const second = await attach({ hostname })
    expect(second).toEqual(first)
    expect(sent.length).toBe(queued)
    const audit = await ok<{ entries: { action: string; targetId: string }[] }>(
      'audit.list',
      { action: 'domain.attach', targetId: first.domainId },
      admin,
    )
    expect(audit.entries).toHaveLength(2)
  })
})

describe('the shared hostname claim', () => {
  it('should refuse a hostname registered as a custom hostname, on any site', async () => {
    const hostname = `taken.${zoneName('claims')}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const other = await siteWithToken(admin)
    for (const siteId of [site.siteId, other.siteId]) {
      const result = await call('domains.attach', { siteId, hostname }, admin)
      expect(result.status, result.text).toBe(409)
      expect(result.body).toMatchObject({ code: 'collision' })
    }
  })

  it('should refuse a domain of one site to another site and to custom hostnames', async () => {
    const hostname = `mine.${zoneName('claims')}`
    await attach({ hostname })
    const other = await siteWithToken(admin)
    const domain = await call('domains.attach', { siteId: other.siteId, hostname }, admin)
    expect(domain.status, domain.text).toBe(409)
    expect(domain.body).toMatchObject({ code: 'collision' })
    const custom = await call('customHostnames.register', { siteId: other.siteId, hostname }, other.app)
    expect(custom.status, custom.text).toBe(409)
    expect(custom.body).toMatchObject({ code: 'collision' })
    const probe = await ok('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
    expect(probe).toMatchObject({ verdict: 'blocked', reason: 'collision' })
  })

  it('should keep the site from being removed while it holds a domain, naming it', async () => {
    const hostname = `held.${zoneName('claims')}`
    await attach({ hostname })
    const result = await call('sites.remove', { id: site.siteId }, admin)
    expect(result.status, result.text).toBe(409)
    expect(result.text).toContain(hostname)
  })
})

describe('manual domains', () => {
  it('should wait for the record, then fail with the records to create; attach again goes green', async () => {
    const hostname = `app.${zoneName('manual')}`
    const { domainId } = await attach({ hostname, driver: 'manual' })
    await everything()
    const waiting = await getDomain(domainId, admin)
    expect(waiting).toMatchObject({ dnsState: 'pending', certState: 'none', failureRemedy: null })
    expect(stepsOf(waiting)).toEqual([
      ['driver-check', 'passed'],
      ['dns-write', 'skipped'],
      ['dns-verify', 'waiting'],
    ])
    expect(agent.calls).toEqual([])
    await ageStep(domainId, 25 * 60 * 60 * 1000)
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ dnsState: 'failed', certState: 'none', routeId: null })
    expect(failed.failureRemedy).toContain('DNS verify')
    expect(failed.failureRemedy).toContain(`CNAME ${hostname} → ${target}`)
    expect(stepsOf(failed).at(-1)).toEqual(['dns-verify', 'failed'])
    doh.set(hostname, 'CNAME', [`${target}.`])
    await attach({ hostname })
    await everything()
    expect(await getDomain(domainId, admin)).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
      failureRemedy: null,
    })
  })
})

describe('failed steps', () => {
  it('should fail at route setup with the agent refusal and leave no vhost', async () => {
    agent.refuseApply = 'loading new config: http.handlers.reverse_proxy: invalid upstream'
    const hostname = `route.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ dnsState: 'verified', certState: 'failed', routeId: null })
    expect(failed.failureRemedy).toContain('route setup')
    expect(failed.failureRemedy).toContain('invalid upstream')
    expect(stepsOf(failed).at(-1)).toEqual(['route-setup', 'failed'])
    const routes = await ok<{ status: string }[]>('routes.listForSite', { siteId: site.siteId }, admin)
    expect(routes.every((route) => route.status === 'removed')).toBe(true)
    expect(agent.edge.vhosts).toEqual([])
  })

  it('should fail at the certificate step with the agent error and take the route off the node', async () => {
    const hostname = `cert.${zone}`
    const { domainId } = await attach({ hostname })
    await runJobsUntil(sent, async () => (await stepOf(domainId)) === 'certificate')
    // The node lost the vhost behind the panel's back: priming is refused.
    agent.edge = { ...agent.edge, vhosts: [] }
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ dnsState: 'verified', certState: 'failed', routeId: null })
    expect(failed.failureRemedy).toContain('certificate')
    expect(failed.failureRemedy).toContain('is not in the desired state')
    expect(await ok('routes.listForSite', { siteId: site.siteId }, admin)).toEqual([])
    expect(agent.edge.vhosts).toEqual([])
  })

  it('should fail at the smoke test, never reporting green', async () => {
    const hostname = `smoke.${zone}`
    const { domainId } = await attach({ hostname })
    await runJobsUntil(sent, async () => (await stepOf(domainId)) === 'smoke-test')
    expect((await getDomain(domainId, admin)).certState).toBe('pending')
    agent.edge = { ...agent.edge, vhosts: [] }
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ certState: 'failed', nextStep: null })
    expect(failed.failureRemedy).toContain('smoke test')
    expect(failed.failureRemedy).toContain('is not routed on this node')
    expect(failed.certExpiresAt).not.toBeNull()
  })
})

describe('a domain whose route is removed', () => {
  it('should turn failed saying so instead of staying green, and go green again when attached again', async () => {
    const hostname = `unrouted.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    const green = await getDomain(domainId, admin)
    expect(green).toMatchObject({ certState: 'issued', dnsState: 'verified' })
    await ok('routes.remove', { id: green.routeId }, admin)
    const orphaned = await getDomain(domainId, admin)
    expect(orphaned).toMatchObject({ certState: 'failed', routeId: null })
    expect(orphaned.failureRemedy).toContain('routes.remove')
    await attach({ hostname })
    await everything()
    expect(await getDomain(domainId, admin)).toMatchObject({ certState: 'issued', dnsState: 'verified' })
  })
})

describe('domains.renew', () => {
  it('should go issued → renewing → issued with a new serial and no DNS verify', async () => {
    const hostname = `renew.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    const before = agent.certificates.get(hostname)?.serial
    const green = await getDomain(domainId, admin)
    expect(await ok('domains.renew', { id: domainId }, admin)).toEqual({ renewing: true, id: domainId })
    expect((await getDomain(domainId, admin)).certState).toBe('renewing')
    await everything()
    const renewed = await getDomain(domainId, admin)
    const after = agent.certificates.get(hostname)?.serial
    expect(after).not.toBe(before)
    expect(renewed).toMatchObject({ certState: 'issued', dnsState: 'verified' })
    expect(renewed.verification.at(-1)).toMatchObject({ step: 'renew', state: 'passed' })
    expect(renewed.verification.at(-1)?.detail).toContain(after)
    expect(stepsOf(renewed).filter(([step]) => step === 'dns-verify')).toHaveLength(1)
    expect(renewed.verification.length).toBe(green.verification.length + 1)
    expect(agent.calls.filter((c) => c.path === '/v2/certificates/renew')).toHaveLength(1)
  })

  it('should answer 404 for an unknown id and 409 before the domain is green', async () => {
    expect((await call('domains.renew', { id: 'nope' }, admin)).status).toBe(404)
    const { domainId } = await attach({ hostname: `early.${zone}` })
    const early = await call('domains.renew', { id: domainId }, admin)
    expect(early.status, early.text).toBe(409)
  })
})

describe('domains.detach', () => {
  it('should take the route off, delete the records it wrote, release the claim, then the row', async () => {
    const hostname = `gone.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    expect(boxes[0]?.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    expect(await ok('domains.detach', { id: domainId }, admin)).toEqual({ detached: true })
    // While the deletes run the domain is still there, saying so, and no longer green.
    const detaching = await getDomain(domainId, admin)
    expect(detaching.verification.at(-1)).toMatchObject({ step: 'detach', state: 'running' })
    expect(detaching).toMatchObject({ certState: 'none', nextStep: null })
    expect(await ok('domains.detach', { id: domainId }, admin)).toEqual({ detached: true })
    await everything()
    expect((await call('domains.get', { id: domainId }, admin)).status).toBe(404)
    for (const box of boxes) expect(box.lookup(hostname, 'CNAME')).toEqual([])
    expect(agent.edge.vhosts).toEqual([])
    expect(await ok('routes.listForSite', { siteId: site.siteId }, admin)).toEqual([])
    const registered = await call('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    expect(registered.status, registered.text).toBe(200)
    expect((await call('domains.detach', { id: domainId }, admin)).status).toBe(404)
  })

  it('should leave records it did not write', async () => {
    const hostname = `theirs.${zone}`
    await ok(
      'dnsServers.zones.upsertRecord',
      { id: zoneId, name: hostname, type: 'CNAME', ttl: 300, values: [target] },
      admin,
    )
    const { domainId } = await attach({ hostname })
    await everything()
    await ok('domains.detach', { id: domainId }, admin)
    await everything()
    expect(boxes[0]?.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
  })
})

describe('domains.setProxied', () => {
  it('should record the flag on a selfhosted domain and answer reattachToApply false', async () => {
    const { domainId } = await attach({ hostname: `p.${zone}` })
    expect(await ok('domains.setProxied', { id: domainId, proxied: true }, admin)).toEqual({
      proxied: true,
      reattachToApply: false,
    })
    expect(await ok('domains.setProxied', { id: domainId, proxied: false }, admin)).toEqual({
      proxied: false,
      reattachToApply: false,
    })
    expect((await call('domains.setProxied', { id: 'nope', proxied: false }, admin)).status).toBe(404)
  })
})

describe('permissions and the sweep', () => {
  it('should let an operator read but not attach', async () => {
    const operator = await operatorSession(admin)
    const { domainId } = await attach({ hostname: `op.${zone}` })
    expect((await call('domains.get', { id: domainId }, operator)).status).toBe(200)
    expect((await call('domains.list', { siteId: site.siteId }, operator)).status).toBe(200)
    expect((await call('domains.drivers', {}, operator)).status).toBe(200)
    const refused = await call('domains.attach', { siteId: site.siteId, hostname: `op2.${zone}` }, operator)
    expect(refused.status).toBe(403)
  })

  it('should queue the next step again for a chain that went quiet', async () => {
    const { domainId } = await attach({ hostname: `lost.${zone}` })
    sent.length = 0
    await domainSweepTask.run(workerEnv, Date.now())
    expect(sent).toEqual([])
    await ageStep(domainId, 3 * 60 * 60 * 1000)
    await domainSweepTask.run(workerEnv, Date.now())
    expect(sent.map((job) => job.body)).toEqual([
      expect.objectContaining({ type: 'domain.step', id: domainId }),
    ])
    await everything()
    expect((await getDomain(domainId, admin)).certState).toBe('issued')
  })
})

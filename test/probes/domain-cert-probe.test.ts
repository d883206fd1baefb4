import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { db } from '../../src/db/client'
import { domains } from '../../src/db/schema/domains'
import { fanOutScan } from '../../src/probes/checks/scan-cron'
import {
  attachGreen,
  certProbesOf,
  type DomainWorld,
  domainWorld,
  getDomain,
  runJobsUntil,
  stepOf,
} from '../domains/fixture'
import { ok } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { probeRecord, workerEnv } from './catalogue-fixture'

// A domain's cert-expiry probe exists only while the domain is green: it is created in the batch that turns the
// domain green, and archived in the batch that fails or detaches it. The monitoring list never shows a probe
// that is paused and never checked for a domain that is not serving.

let world: DomainWorld

beforeEach(async () => {
  world = await domainWorld()
})

const hostnameOf = (label: string) => `${label}.${crypto.randomUUID().slice(0, 8)}-certprobe.com`
const liveProbes = async (domainId: string) =>
  (await certProbesOf(domainId, world.admin)).filter((probe) => probe.archivedAt === null)

describe("a domain's cert-expiry probe", () => {
  it('should not exist while the attach runs, and be created, scanned and up once the domain is green', async () => {
    const hostname = hostnameOf('www')
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname, driver: 'manual' },
      world.admin,
    )
    await runJobsUntil(world.sent, async () => (await stepOf(domainId)) === 'smoke-test')
    expect(await certProbesOf(domainId, world.admin)).toEqual([])
    await drainJobs(world.sent, '', 40)
    expect((await getDomain(domainId, world.admin)).certState).toBe('issued')
    const [probe, ...others] = await certProbesOf(domainId, world.admin)
    expect(others).toEqual([])
    expect(probe).toMatchObject({
      archivedAt: null,
      config: { certWarnDays: 14, intervalSeconds: 3600 },
    })
    expect((await probeRecord(probe?.id ?? ''))?.nextCheckAt).not.toBeNull()
    // The minute scan queues its check at once; the check judges the certificate the node reported.
    await fanOutScan(workerEnv, Date.now())
    await drainJobs(world.sent, 'probe.scan')
    await drainJobs(world.sent, 'probe.check')
    const checked = await ok<{ state: string; lastResult: { detail: string } }>(
      'probes.get',
      { id: probe?.id },
      world.admin,
    )
    expect(checked.state).toBe('up')
    expect(checked.lastResult.detail).toMatch(/^certificate valid until/)
    // Attach of a green domain changes nothing: still one probe.
    await ok('domains.attach', { siteId: world.site.siteId, hostname }, world.admin)
    expect(await certProbesOf(domainId, world.admin)).toHaveLength(1)
  })

  it('should never exist for a domain that fails before it is green', async () => {
    const hostname = hostnameOf('broken')
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    world.agent.refuseApply = 'loading new config: invalid upstream'
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname, driver: 'manual' },
      world.admin,
    )
    await drainJobs(world.sent, '', 40)
    expect((await getDomain(domainId, world.admin)).certState).toBe('failed')
    expect(await certProbesOf(domainId, world.admin)).toEqual([])
  })

  it('should be archived when the domain fails, and come back with its settings when it is green again', async () => {
    const hostname = hostnameOf('shop')
    const domainId = await attachGreen(world, hostname)
    const [first] = await liveProbes(domainId)
    await ok(
      'probes.update',
      { id: first?.id, config: { certWarnDays: 30 }, notifyConfig: { emails: ['ops@example.com'] } },
      world.admin,
    )
    // A renew the node cannot carry out fails the domain.
    const vhosts = world.agent.edge.vhosts
    world.agent.edge = { ...world.agent.edge, vhosts: [] }
    await ok('domains.renew', { id: domainId }, world.admin)
    await drainJobs(world.sent, '', 40)
    expect((await getDomain(domainId, world.admin)).certState).toBe('failed')
    expect(await liveProbes(domainId)).toEqual([])
    expect(await ok('probes.list', {}, world.admin)).not.toContainEqual(
      expect.objectContaining({ id: first?.id }),
    )

    world.agent.edge = { ...world.agent.edge, vhosts }
    await ok('domains.renew', { id: domainId }, world.admin)
    await drainJobs(world.sent, '', 40)
    expect((await getDomain(domainId, world.admin)).certState).toBe('issued')
    const probes = await certProbesOf(domainId, world.admin)
    expect(probes.map((probe) => [probe.id === first?.id, probe.archivedAt === null])).toEqual([
      [true, false],
      [false, true],
    ])
    const again = await ok<{ config: unknown; notifyConfig: { emails: string[] } }>(
      'probes.get',
      { id: probes[1]?.id },
      world.admin,
    )
    expect(again.config).toMatchObject({ certWarnDays: 30 })
    expect(again.notifyConfig.emails).toEqual(['ops@example.com'])
  })

  it('should be archived when the route serving the domain is removed', async () => {
    const domainId = await attachGreen(world, hostnameOf('unrouted'))
    const { routeId } = await getDomain(domainId, world.admin)
    await ok('routes.remove', { id: routeId }, world.admin)
    expect(await liveProbes(domainId)).toEqual([])
    expect(await certProbesOf(domainId, world.admin)).toHaveLength(1)
  })

  it('should be archived by domains.detach, keeping its events', async () => {
    const domainId = await attachGreen(world, hostnameOf('gone'))
    const [probe] = await liveProbes(domainId)
    expect(await ok('domains.detach', { id: domainId }, world.admin)).toEqual({ detached: true })
    expect(await liveProbes(domainId)).toEqual([])
    const [archived] = await certProbesOf(domainId, world.admin)
    expect(archived?.id).toBe(probe?.id)
    expect(archived?.archivedAt).not.toBeNull()
    expect((await probeRecord(probe?.id ?? ''))?.nextCheckAt).toBeNull()
    expect(await ok('probes.get', { id: probe?.id }, world.admin)).toMatchObject({ enabled: true })
  })

  it('should be archived by the upgrade for a domain that had failed, and kept for a green one', async () => {
    // Before this rule, attach created the probe at once: a domain that failed kept a live one.
    const failedId = await attachGreen(world, hostnameOf('old-failed'))
    const greenId = await attachGreen(world, hostnameOf('old-green'))
    await db(workerEnv.DB)
      .update(domains)
      .set({ step: 'failed', certState: 'failed' })
      .where(eq(domains.id, failedId))
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0008_'))
    for (const query of migration?.queries ?? []) await workerEnv.DB.prepare(query).run()
    expect(migration).toBeDefined()
    expect(await liveProbes(failedId)).toEqual([])
    expect(await certProbesOf(failedId, world.admin)).toHaveLength(1)
    expect(await liveProbes(greenId)).toHaveLength(1)
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import { zoneName } from './custom-hostnames/fixture'
import { enrollBoxes } from './dns-servers/enroll'
import {
  attachGreen,
  certProbesOf,
  type DomainWorld,
  domainWorld,
  getDomain,
  stepOf,
  stepsOf,
} from './domains/fixture'
import { FakePowerDns } from './fakes/powerdns'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { fakeOrigin } from './helpers/outbound'

// A node's DNS target or addresses changed: the domains on it are planned again, the records the panel wrote are
// replaced, and each domain goes back through its DNS write and verify to green. Nothing keeps pointing at the
// old target.

const boxes = [
  new FakePowerDns('https://pdns-a.replan.test', 'replan-key-a'),
  new FakePowerDns('https://pdns-b.replan.test', 'replan-key-b'),
]
const cf = cloudflareFake()
let world: DomainWorld
let enrolled = false

beforeEach(async () => {
  for (const box of boxes) box.reset().install()
  world = await domainWorld()
  fakeOrigin(cf.origin, cf.handle)
  if (!enrolled) {
    await enrollBoxes(world.admin, 'replan', boxes)
    enrolled = true
  }
})

const everything = () => drainJobs(world.sent, '', 40)
const newTarget = () => `edge-new.${crypto.randomUUID().slice(0, 8)}.example.net`
const everywhere = (name: string, type: string) => boxes.map((box) => box.lookup(name, type))

async function moveNode(fields: Record<string, unknown>): Promise<void> {
  await ok('nodes.update', { id: world.site.nodeId, ...fields }, world.admin)
  await drainJobs(world.sent, 'domain.replan')
}

async function selfhostedGreen(label: string): Promise<{ domainId: string; hostname: string }> {
  const zone = zoneName(label)
  await ok('dnsServers.zones.create', { name: zone }, world.admin)
  const hostname = `www.${zone}`
  const { domainId } = await ok<{ domainId: string }>(
    'domains.attach',
    { siteId: world.site.siteId, hostname, driver: 'selfhosted' },
    world.admin,
  )
  await everything()
  expect(await getDomain(domainId, world.admin)).toMatchObject({ dnsState: 'verified', certState: 'issued' })
  return { domainId, hostname }
}

describe("a node's DNS target changes", () => {
  it('should replace the CNAME the panel wrote in a self-hosted zone and go green again, never green meanwhile', async () => {
    const { domainId, hostname } = await selfhostedGreen('replan-hosted')
    expect(everywhere(hostname, 'CNAME')).toEqual([[`${world.target}.`], [`${world.target}.`]])
    const { routeId } = await getDomain(domainId, world.admin)
    const target = newTarget()
    await moveNode({ dnsTarget: target })

    const replanned = await getDomain(domainId, world.admin)
    expect(replanned).toMatchObject({ dnsState: 'pending', nextStep: null, routeId })
    expect(replanned.verification.at(-1)).toMatchObject({ step: 'replan', state: 'passed' })
    expect(replanned.verification.at(-1)?.detail).toContain(target)
    await everything()
    const green = await getDomain(domainId, world.admin)
    expect(green).toMatchObject({ dnsState: 'verified', certState: 'issued', routeId, failureRemedy: null })
    expect(stepsOf(green).slice(-6)).toEqual([
      ['replan', 'passed'],
      ['dns-write', 'passed'],
      ['dns-verify', 'passed'],
      ['route-setup', 'passed'],
      ['certificate', 'passed'],
      ['smoke-test', 'passed'],
    ])
    expect(everywhere(hostname, 'CNAME')).toEqual([[`${target}.`], [`${target}.`]])
    // The cert probe of a domain that never stopped serving stays the same one.
    expect((await certProbesOf(domainId, world.admin)).map((p) => p.archivedAt)).toEqual([null])
    // Detach deletes what the panel wrote for the new plan.
    await ok('domains.detach', { id: domainId }, world.admin)
    await everything()
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })

  it('should turn the CNAME into A records when the node keeps only an address', async () => {
    const { domainId, hostname } = await selfhostedGreen('replan-address')
    await moveNode({ dnsTarget: null, publicIpv4: '198.51.100.20' })
    await everything()
    expect(await getDomain(domainId, world.admin)).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
    })
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
    expect(everywhere(hostname, 'A')).toEqual([['198.51.100.20'], ['198.51.100.20']])
  })

  it('should replace the record written through provider_a', async () => {
    const zone = zoneName('replan-cf')
    cf.addZone(zone)
    await ok(
      'accounts.create',
      { kind: 'dns', name: `cf-${zone}`, provider: 'provider_a', token: cf.token },
      world.admin,
    )
    const hostname = `shop.${zone}`
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname, driver: 'provider_a' },
      world.admin,
    )
    await everything()
    const written = () => cf.records.filter((r) => r.name === hostname).map((r) => [r.type, r.content])
    expect(written()).toEqual([['CNAME', world.target]])
    const target = newTarget()
    await moveNode({ dnsTarget: target })
    world.doh.set(hostname, 'CNAME', [`${target}.`])
    await everything()
    expect(written()).toEqual([['CNAME', target]])
    expect(await getDomain(domainId, world.admin)).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
    })
  })

  it('should make a manual domain wait for the new record, and run a failed one again with it', async () => {
    const serving = `manual.${zoneName('replan-manual')}`
    const servingId = await attachGreen(world, serving)
    const broken = `broken.${zoneName('replan-manual')}`
    const { domainId: brokenId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname: broken, driver: 'manual' },
      world.admin,
    )
    world.agent.refuseApply = 'loading new config: invalid upstream'
    world.doh.set(broken, 'CNAME', [`${world.target}.`])
    await everything()
    expect((await getDomain(brokenId, world.admin)).certState).toBe('failed')
    world.agent.refuseApply = null

    const target = newTarget()
    await moveNode({ dnsTarget: target })
    await everything()
    expect(await stepOf(servingId)).toBe('dns-verify')
    expect(await getDomain(servingId, world.admin)).toMatchObject({
      dnsState: 'pending',
      certState: 'issued',
    })
    world.doh.set(serving, 'CNAME', [`${target}.`])
    world.doh.set(broken, 'CNAME', [`${target}.`])
    // DNS verify looks again on its own schedule: its queued retries carry on.
    await everything()
    for (const id of [servingId, brokenId])
      expect(await getDomain(id, world.admin)).toMatchObject({ dnsState: 'verified', certState: 'issued' })
  })

  it('should leave a domain being detached alone, and change nothing when the plan is the same', async () => {
    const { domainId, hostname } = await selfhostedGreen('replan-leaving')
    const same = await attachGreen(world, `same.${zoneName('replan-same')}`)
    await ok('domains.detach', { id: domainId }, world.admin)
    const before = await getDomain(same, world.admin)
    // A new public address changes nothing for a CNAME to the DNS target.
    await moveNode({ publicIpv4: '198.51.100.30' })
    expect(await getDomain(same, world.admin)).toEqual(before)
    await moveNode({ dnsTarget: newTarget() })
    expect((await getDomain(domainId, world.admin)).verification.at(-1)).toMatchObject({ step: 'detach' })
    await everything()
    expect(everywhere(hostname, 'CNAME')).toEqual([[], []])
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import {
  attachGreen,
  type DomainWorld,
  domainWorld,
  getDomain,
  runJobsUntil,
  stepOf,
} from './domains/fixture'
import { call, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { beforeNextBatch, raced } from './helpers/races'

// An instance's address and a site's port are what the node's routes point at: changing them re-renders every
// route concerned and pushes the node, so nothing keeps pointing at the old upstream.

interface Route {
  id: string
  kind: string
  status: string
  targetPort: number
  edgeConfig: { vhost: { upstream: string } | null; forward: { upstream: string } | null }
}

let world: DomainWorld

beforeEach(async () => {
  world = await domainWorld()
})

const everything = () => drainJobs(world.sent, '', 40)
const hostnameOf = (label: string) => `${label}.${crypto.randomUUID().slice(0, 8)}-fleet.com`
const routesOf = () =>
  ok<Route[]>('routes.listForInstance', { instanceId: world.site.instanceId }, world.admin)

async function openRaw(listenPort: number, targetPort: number): Promise<void> {
  await ok(
    'routes.createRaw',
    { instanceId: world.site.instanceId, siteId: world.site.siteId, listenPort, targetPort },
    world.admin,
  )
}

describe('instances.update', () => {
  it('should re-render every route of the instance at the new address and push the node', async () => {
    const hostname = hostnameOf('www')
    await attachGreen(world, hostname)
    await openRaw(2222, 22)
    await everything()
    const pushes = world.agent.applies().length

    const updated = await ok<{ id: string; name: string; address: string }>(
      'instances.update',
      { id: world.site.instanceId, address: 'fd00::7' },
      world.admin,
    )
    expect(updated).toMatchObject({ id: world.site.instanceId, name: 'app', address: 'fd00::7' })
    expect((await routesOf()).map((r) => r.status)).toEqual(['pending', 'pending'])
    await everything()
    expect(world.agent.applies().length).toBe(pushes + 1)
    expect(world.agent.edge.vhosts).toEqual([expect.objectContaining({ hostname, upstream: '[fd00::7]:80' })])
    expect(world.agent.edge.forwards).toEqual([{ listenPort: 2222, proto: 'tcp', upstream: '[fd00::7]:22' }])
    expect((await routesOf()).map((r) => r.status)).toEqual(['active', 'active'])
    expect(await ok('instances.get', { id: world.site.instanceId }, world.admin)).toMatchObject({
      address: 'fd00::7',
    })
    const audit = await ok<{ entries: { detail: { fields: string[] } }[] }>(
      'audit.list',
      { action: 'instance.update', targetId: world.site.instanceId },
      world.admin,
    )
    expect(audit.entries.map((e) => e.detail.fields)).toEqual([['address']])
  })

  it('should rename without touching the routes, and refuse a name the node already has', async () => {
    await openRaw(2223, 22)
    await everything()
    const pushes = world.agent.applies().length
    await ok(
      'instances.create',
      { nodeId: world.site.nodeId, name: 'other', address: '10.0.0.9' },
      world.admin,
    )
    const renamed = await ok('instances.update', { id: world.site.instanceId, name: 'shop' }, world.admin)
    expect(renamed).toMatchObject({ name: 'shop', address: '10.0.0.5' })
    expect(world.sent).toEqual([])
    expect(world.agent.applies().length).toBe(pushes)
    const taken = await call('instances.update', { id: world.site.instanceId, name: 'other' }, world.admin)
    expect(taken.status, taken.text).toBe(409)
    expect(taken.text).toContain('other')
    const unknown = await call('instances.update', { id: 'nope', address: '10.0.0.1' }, world.admin)
    expect(unknown.status).toBe(404)
    const bad = await call('instances.update', { id: world.site.instanceId, address: '' }, world.admin)
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ issues: [{ path: 'address' }] })
  })

  it('should answer 409 to an update that lost a race with another, changing nothing', async () => {
    const { main, rival } = await raced(
      () => call('instances.update', { id: world.site.instanceId, address: '10.0.0.6' }, world.admin),
      () => call('instances.update', { id: world.site.instanceId, address: '10.0.0.7' }, world.admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect(main.body).toMatchObject({ code: 'conflict' })
    expect(await ok('instances.get', { id: world.site.instanceId }, world.admin)).toMatchObject({
      address: '10.0.0.7',
    })
  })

  it('should give a route added while the address changes the new address', async () => {
    const hostname = hostnameOf('racing')
    world.doh.set(hostname, 'CNAME', [`${world.target}.`])
    const { domainId } = await ok<{ domainId: string }>(
      'domains.attach',
      { siteId: world.site.siteId, hostname, driver: 'manual' },
      world.admin,
    )
    await runJobsUntil(world.sent, async () => (await stepOf(domainId)) === 'route-setup')
    // The route-setup job reads the old address, then the change commits before the route does.
    beforeNextBatch(() =>
      ok('instances.update', { id: world.site.instanceId, address: '10.0.0.8' }, world.admin),
    )
    await everything()
    expect(await getDomain(domainId, world.admin)).toMatchObject({ certState: 'issued' })
    expect(world.agent.edge.vhosts).toEqual([expect.objectContaining({ hostname, upstream: '10.0.0.8:80' })])
  })
})

describe('sites.update', () => {
  it("should re-render the site's http routes at the new port, leave raw routes, and push the node", async () => {
    const hostname = hostnameOf('port')
    await attachGreen(world, hostname)
    await openRaw(2224, 22)
    await everything()
    const updated = await ok('sites.update', { id: world.site.siteId, port: 8080 }, world.admin)
    expect(updated).toMatchObject({ id: world.site.siteId, port: 8080 })
    const routes = await routesOf()
    expect(routes.map((r) => [r.kind, r.status, r.targetPort])).toEqual([
      ['raw', 'active', 22],
      ['http', 'pending', 8080],
    ])
    await everything()
    expect(world.agent.edge.vhosts).toEqual([
      expect.objectContaining({ hostname, upstream: '10.0.0.5:8080' }),
    ])
    expect(world.agent.edge.forwards).toEqual([{ listenPort: 2224, proto: 'tcp', upstream: '10.0.0.5:22' }])

    await ok('sites.update', { id: world.site.siteId, port: null }, world.admin)
    await everything()
    expect(world.agent.edge.vhosts).toEqual([expect.objectContaining({ hostname, upstream: '10.0.0.5:80' })])
    const audit = await ok<{ entries: unknown[] }>(
      'audit.list',
      { action: 'site.update', targetId: world.site.siteId },
      world.admin,
    )
    expect(audit.entries).toHaveLength(2)
  })

  it('should rename, answer 404 for an unknown site and 409 to a lost race', async () => {
    const renamed = await ok('sites.update', { id: world.site.siteId, name: 'renamed' }, world.admin)
    expect(renamed).toMatchObject({ name: 'renamed', port: null })
    expect(world.sent).toEqual([])
    expect((await call('sites.update', { id: crypto.randomUUID(), name: 'x' }, world.admin)).status).toBe(404)
    const bad = await call('sites.update', { id: world.site.siteId, port: 70000 }, world.admin)
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ issues: [{ path: 'port' }] })
    const { main, rival } = await raced(
      () => call('sites.update', { id: world.site.siteId, port: 3000 }, world.admin),
      () => call('sites.update', { id: world.site.siteId, port: 4000 }, world.admin),
    )
    expect(rival.status, rival.text).toBe(200)
    expect(main.status, main.text).toBe(409)
    expect(await ok('sites.get', { id: world.site.siteId }, world.admin)).toMatchObject({ port: 4000 })
  })
})

import { describe, expect, it } from 'vitest'
import { admin, allowList, sent, site, zone } from './custom-hostnames/registration-fixture'
import { ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'

describe('routing', () => {
  it('should route a registered hostname to its site at once (so its certificate can be issued) and unroute it on remove', async () => {
    const hostname = 'shop.routed-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const routes = await ok<{ kind: string; hostname: string; status: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes).toEqual([expect.objectContaining({ kind: 'http', hostname, status: 'pending' })])
    expect(sent.map((job) => job.body.type)).toContain('route.reconcile')
    await ok('customHostnames.remove', { siteId: site.siteId, hostname }, site.app)
    const after = await ok<{ status: string }[]>('routes.listForSite', { siteId: site.siteId }, admin)
    expect(after.map((route) => route.status)).toEqual(['removed'])
  })

  it('should route a live hostname again on re-register after its route was removed by hand', async () => {
    await allowList([zone])
    const hostname = `rerouted.${zone}`
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    await drainJobs(sent, 'custom-hostname.')
    expect(await ok('customHostnames.status', { siteId: site.siteId, hostname }, site.app)).toMatchObject({
      state: 'active',
    })
    const [route] = await ok<{ id: string }[]>('routes.listForSite', { siteId: site.siteId }, admin)
    await ok('routes.remove', { id: route?.id }, admin)
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const routes = await ok<{ hostname: string; status: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes.filter((r) => r.status !== 'removed')).toEqual([expect.objectContaining({ hostname })])
  })
})

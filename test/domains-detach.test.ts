import { describe, expect, it } from 'vitest'
import { admin, agent, attach, boxes, everything, site, target, zone, zoneId } from './domains/attach-fixture'
import { getDomain } from './domains/fixture'
import { call, ok } from './helpers/http'

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

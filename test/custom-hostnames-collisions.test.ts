import { describe, expect, it } from 'vitest'
import { siteWithToken } from './custom-hostnames/fixture'
import { admin, site } from './custom-hostnames/registration-fixture'
import { call, ok } from './helpers/http'

describe('collisions', () => {
  it('should give one winner and one 409 collision for two sites registering at once', async () => {
    const other = await siteWithToken(admin)
    const hostname = `race-${crypto.randomUUID().slice(0, 6)}.customer.com`
    const results = await Promise.all([
      call('customHostnames.register', { siteId: site.siteId, hostname }, site.app),
      call('customHostnames.register', { siteId: other.siteId, hostname }, other.app),
    ])
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    expect(results.find((r) => r.status === 409)?.body).toMatchObject({ code: 'collision' })
    const loser = results[0]?.status === 409 ? site : other
    const probe = await ok('customHostnames.probe', { siteId: loser.siteId, hostname }, loser.app)
    expect(probe).toMatchObject({ verdict: 'blocked', reason: 'collision', registered: false })
  })
})

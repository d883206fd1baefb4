import { describe, expect, it } from 'vitest'
import { siteWithToken } from './custom-hostnames/fixture'
import { admin } from './custom-hostnames/registration-fixture'
import { call, ok } from './helpers/http'

describe('a node with nothing to point at', () => {
  it('should answer register and probe instructions site_has_no_target with no records, never 409', async () => {
    const bare = await siteWithToken(admin, { dnsTarget: null, publicIpv4: null, publicIpv6: null })
    const input = { siteId: bare.siteId, hostname: 'shop.bare-customer.com' }
    const register = await call('customHostnames.register', input, bare.app)
    expect(register.status, register.text).toBe(200)
    expect(register.body).toMatchObject({ state: 'instructions', reason: 'site_has_no_target', records: [] })
    expect(await ok('customHostnames.probe', input, bare.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'site_has_no_target',
      registered: true,
    })
  })
})

import { describe, expect, it } from 'vitest'
import { type Registration, type Status, site } from './custom-hostnames/registration-fixture'
import { FakeDoh } from './fakes/doh'
import { ok } from './helpers/http'

describe('status', () => {
  it('should report dns.resolves from the resolver and that no certificate was seen yet', async () => {
    const hostname = 'shop.resolving-customer.com'
    const registered = await ok<Registration>(
      'customHostnames.register',
      { siteId: site.siteId, hostname },
      site.app,
    )
    const target = registered.records[0]?.value ?? ''
    new FakeDoh().set(hostname, 'CNAME', [`${target}.`]).install()
    const status = await ok<Status>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
    expect(status).toMatchObject({ state: 'instructions', dns: { resolves: true }, cert: { issued: false } })
    expect(Date.parse(status.dns.checkedAt)).toBeGreaterThan(Date.now() - 60_000)
  })
})

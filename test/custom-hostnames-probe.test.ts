import { describe, expect, it } from 'vitest'
import { admin, allowList, sent, site, zone } from './custom-hostnames/registration-fixture'
import { call, ok } from './helpers/http'

describe('customHostnames.probe', () => {
  it('should hand out records for a zone the panel does not control, writing nothing', async () => {
    const before = await ok<{ entries: unknown[] }>('audit.list', { limit: 200 }, admin)
    const probe = await ok(
      'customHostnames.probe',
      { siteId: site.siteId, hostname: 'shop.customer.com' },
      site.app,
    )
    expect(probe).toEqual({
      hostname: 'shop.customer.com',
      verdict: 'instructions',
      reason: 'external-zone',
      tier: 'external',
      zoneName: 'customer.com',
      records: [
        { type: 'CNAME', name: 'shop.customer.com', value: expect.stringMatching(/^edge\./), ttl: 300 },
      ],
      cnameTarget: expect.stringMatching(/^edge\./),
      registered: false,
    })
    const after = await ok<{ entries: unknown[] }>('audit.list', { limit: 200 }, admin)
    expect(after.entries.length).toBe(before.entries.length)
    expect(sent).toEqual([])
    expect(await ok('customHostnames.list', { siteId: site.siteId }, site.app)).toEqual({
      hostnames: [],
      nextCursor: null,
    })
  })

  it('should say auto for an allow-listed hosted zone and zone-not-allow-listed otherwise', async () => {
    const input = { siteId: site.siteId, hostname: `app.${zone}` }
    expect(await ok('customHostnames.probe', input, site.app)).toMatchObject({
      verdict: 'instructions',
      reason: 'zone-not-allow-listed',
      tier: 'hosted',
      zoneName: zone,
    })
    await allowList([zone])
    expect(await ok('customHostnames.probe', input, site.app)).toMatchObject({
      verdict: 'auto',
      reason: null,
      tier: 'hosted',
    })
  })

  it('should plan a hostname of more labels than D1 binds parameters (119 candidate zones)', async () => {
    const hostname = `${'a.'.repeat(118)}deep-customer.com`
    const probe = await call('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
    expect(probe.status, probe.text).toBe(200)
    expect(probe.body).toMatchObject({ verdict: 'instructions', zoneName: 'deep-customer.com' })
  })

  it('should answer 400 naming hostname for what the rules refuse', async () => {
    for (const hostname of [
      'Shop.Customer.com',
      '*.customer.com',
      '192.0.2.1',
      'co.uk',
      `${'a'.repeat(64)}.com`,
    ]) {
      const result = await call('customHostnames.probe', { siteId: site.siteId, hostname }, site.app)
      expect(result.status, `${hostname}: ${result.text}`).toBe(400)
      expect(result.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'hostname' }] })
    }
  })
})

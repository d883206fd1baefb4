import { describe, expect, it } from 'vitest'
import { admin, allowList, site, zone } from './custom-hostnames/registration-fixture'
import { call, ok } from './helpers/http'

describe('customHostnames.settings', () => {
  it('should accept * with a warning, refuse zones the panel does not control, and keep the list deny-by-default', async () => {
    expect(await ok('customHostnames.settings.get', { siteId: site.siteId }, admin)).toEqual({
      siteId: site.siteId,
      allowedZones: [],
      warning: null,
      askUrl: null,
      removeStaleAfterDays: null,
    })
    const wildcard = await allowList(['*'])
    expect(wildcard.warning).toMatch(/every zone/i)
    const unknown = await call(
      'customHostnames.settings.set',
      { siteId: site.siteId, allowedZones: [zone, 'not-ours.com'] },
      admin,
    )
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.body).toMatchObject({ issues: [{ path: 'allowedZones.1' }] })
    expect(await ok('customHostnames.settings.get', { siteId: site.siteId }, admin)).toMatchObject({
      allowedZones: ['*'],
    })
  })

  it('should never let a site token read or widen its own allow-list', async () => {
    const set = await call(
      'customHostnames.settings.set',
      { siteId: site.siteId, allowedZones: ['*'] },
      site.app,
    )
    expect(set.status, set.text).toBe(403)
    const get = await call('customHostnames.settings.get', { siteId: site.siteId }, site.app)
    expect(get.status, get.text).toBe(403)
  })
})

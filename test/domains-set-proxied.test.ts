import { describe, expect, it } from 'vitest'
import { admin, attach, zone } from './domains/attach-fixture'
import { call, ok } from './helpers/http'

describe('domains.setProxied', () => {
  it('should record the flag on a selfhosted domain and answer reattachToApply false', async () => {
    const { domainId } = await attach({ hostname: `p.${zone}` })
    expect(await ok('domains.setProxied', { id: domainId, proxied: true }, admin)).toEqual({
      proxied: true,
      reattachToApply: false,
    })
    expect(await ok('domains.setProxied', { id: domainId, proxied: false }, admin)).toEqual({
      proxied: false,
      reattachToApply: false,
    })
    expect((await call('domains.setProxied', { id: 'nope', proxied: false }, admin)).status).toBe(404)
  })
})

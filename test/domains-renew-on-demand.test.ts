import { describe, expect, it } from 'vitest'
import { admin, agent, attach, everything, zone } from './domains/attach-fixture'
import { getDomain, stepsOf } from './domains/fixture'
import { call, ok } from './helpers/http'

describe('domains.renew', () => {
  it('should go issued → renewing → issued with a new serial and no DNS verify', async () => {
    const hostname = `renew.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    const before = agent.certificates.get(hostname)?.serial
    const green = await getDomain(domainId, admin)
    expect(await ok('domains.renew', { id: domainId }, admin)).toEqual({ renewing: true, id: domainId })
    expect((await getDomain(domainId, admin)).certState).toBe('renewing')
    await everything()
    const renewed = await getDomain(domainId, admin)
    const after = agent.certificates.get(hostname)?.serial
    expect(after).not.toBe(before)
    expect(renewed).toMatchObject({ certState: 'issued', dnsState: 'verified' })
    expect(renewed.verification.at(-1)).toMatchObject({ step: 'renew', state: 'passed' })
    expect(renewed.verification.at(-1)?.detail).toContain(after)
    expect(stepsOf(renewed).filter(([step]) => step === 'dns-verify')).toHaveLength(1)
    expect(renewed.verification.length).toBe(green.verification.length + 1)
    expect(agent.calls.filter((c) => c.path === '/v2/certificates/renew')).toHaveLength(1)
  })

  it('should answer 404 for an unknown id and 409 before the domain is green', async () => {
    expect((await call('domains.renew', { id: 'nope' }, admin)).status).toBe(404)
    const { domainId } = await attach({ hostname: `early.${zone}` })
    const early = await call('domains.renew', { id: domainId }, admin)
    expect(early.status, early.text).toBe(409)
  })
})

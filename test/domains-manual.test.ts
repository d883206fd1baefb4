import { describe, expect, it } from 'vitest'
import { zoneName } from './custom-hostnames/fixture'
import { admin, agent, attach, doh, everything, target } from './domains/attach-fixture'
import { ageStep, getDomain, stepsOf } from './domains/fixture'

describe('manual domains', () => {
  it('should wait for the record, then fail with the records to create; attach again goes green', async () => {
    const hostname = `app.${zoneName('manual')}`
    const { domainId } = await attach({ hostname, driver: 'manual' })
    await everything()
    const waiting = await getDomain(domainId, admin)
    expect(waiting).toMatchObject({ dnsState: 'pending', certState: 'none', failureRemedy: null })
    expect(stepsOf(waiting)).toEqual([
      ['driver-check', 'passed'],
      ['dns-write', 'skipped'],
      ['dns-verify', 'waiting'],
    ])
    expect(agent.calls).toEqual([])
    await ageStep(domainId, 25 * 60 * 60 * 1000)
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ dnsState: 'failed', certState: 'none', routeId: null })
    expect(failed.failureRemedy).toContain('DNS verify')
    expect(failed.failureRemedy).toContain(`CNAME ${hostname} → ${target}`)
    expect(stepsOf(failed).at(-1)).toEqual(['dns-verify', 'failed'])
    doh.set(hostname, 'CNAME', [`${target}.`])
    await attach({ hostname })
    await everything()
    expect(await getDomain(domainId, admin)).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
      failureRemedy: null,
    })
  })
})

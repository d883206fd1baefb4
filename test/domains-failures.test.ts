import { describe, expect, it } from 'vitest'
import { admin, agent, attach, everything, sent, site, zone } from './domains/attach-fixture'
import { getDomain, runJobsUntil, stepOf, stepsOf } from './domains/fixture'
import { ok } from './helpers/http'

describe('failed steps', () => {
  it('should fail at route setup with the agent refusal and leave no vhost', async () => {
    agent.refuseApply = 'loading new config: http.handlers.reverse_proxy: invalid upstream'
    const hostname = `route.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ dnsState: 'verified', certState: 'failed', routeId: null })
    expect(failed.failureRemedy).toContain('route setup')
    expect(failed.failureRemedy).toContain('invalid upstream')
    expect(stepsOf(failed).at(-1)).toEqual(['route-setup', 'failed'])
    const routes = await ok<{ status: string }[]>('routes.listForSite', { siteId: site.siteId }, admin)
    expect(routes.every((route) => route.status === 'removed')).toBe(true)
    expect(agent.edge.vhosts).toEqual([])
  })

  it('should fail at the certificate step with the agent error and take the route off the node', async () => {
    const hostname = `cert.${zone}`
    const { domainId } = await attach({ hostname })
    await runJobsUntil(sent, async () => (await stepOf(domainId)) === 'certificate')
    // The node lost the vhost behind the panel's back: priming is refused.
    agent.edge = { ...agent.edge, vhosts: [] }
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ dnsState: 'verified', certState: 'failed', routeId: null })
    expect(failed.failureRemedy).toContain('certificate')
    expect(failed.failureRemedy).toContain('is not in the desired state')
    expect(await ok('routes.listForSite', { siteId: site.siteId }, admin)).toEqual([])
    expect(agent.edge.vhosts).toEqual([])
  })

  it('should fail at the smoke test, never reporting green', async () => {
    const hostname = `smoke.${zone}`
    const { domainId } = await attach({ hostname })
    await runJobsUntil(sent, async () => (await stepOf(domainId)) === 'smoke-test')
    expect((await getDomain(domainId, admin)).certState).toBe('pending')
    agent.edge = { ...agent.edge, vhosts: [] }
    await everything()
    const failed = await getDomain(domainId, admin)
    expect(failed).toMatchObject({ certState: 'failed', nextStep: null })
    expect(failed.failureRemedy).toContain('smoke test')
    expect(failed.failureRemedy).toContain('is not routed on this node')
    expect(failed.certExpiresAt).not.toBeNull()
  })
})

describe('a domain whose route is removed', () => {
  it('should turn failed saying so instead of staying green, and go green again when attached again', async () => {
    const hostname = `unrouted.${zone}`
    const { domainId } = await attach({ hostname })
    await everything()
    const green = await getDomain(domainId, admin)
    expect(green).toMatchObject({ certState: 'issued', dnsState: 'verified' })
    await ok('routes.remove', { id: green.routeId }, admin)
    const orphaned = await getDomain(domainId, admin)
    expect(orphaned).toMatchObject({ certState: 'failed', routeId: null })
    expect(orphaned.failureRemedy).toContain('routes.remove')
    await attach({ hostname })
    await everything()
    expect(await getDomain(domainId, admin)).toMatchObject({ certState: 'issued', dnsState: 'verified' })
  })
})

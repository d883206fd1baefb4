import { describe, expect, it } from 'vitest'
import { zoneName } from './custom-hostnames/fixture'
import {
  admin,
  agent,
  attach,
  boxes,
  everything,
  sent,
  site,
  target,
  zone,
  zoneId,
} from './domains/attach-fixture'
import { type DomainRow, getDomain, stepsOf } from './domains/fixture'
import { call, ok } from './helpers/http'
import { tokenFor } from './helpers/principals'

describe('the programmatic onboarding sequence (selfhosted)', () => {
  it('should go green: upsert the record, attach, poll get until verified and issued', async () => {
    // Exactly the permissions the contract names for the sequence.
    const token = await tokenFor(admin, ['domains:view', 'domains:manage', 'settings:view'])
    const hostname = `www.${zone}`
    const upsert = await call(
      'dnsServers.zones.records.upsert',
      { id: zoneId, name: hostname, type: 'CNAME', ttl: 300, values: [target] },
      token,
      'rest',
    )
    expect(upsert.status, upsert.text).toBe(200)
    const attached = await call<{ domainId: string; hostname: string }>(
      'domains.attach',
      { siteId: site.siteId, hostname, driver: 'selfhosted' },
      token,
      'rest',
    )
    expect(attached.status, attached.text).toBe(200)
    expect(attached.body).toEqual({ domainId: expect.any(String), hostname })
    const id = attached.body.domainId
    const first = await call<DomainRow>('domains.get', { id }, token, 'rest')
    expect(first.body).toMatchObject({
      hostname,
      siteId: site.siteId,
      driver: 'selfhosted',
      issuer: 'pebble',
      dnsState: 'pending',
      certState: 'none',
      proxied: false,
      routeId: null,
      failureRemedy: null,
      certExpiresAt: null,
      nextStep: null,
    })
    await everything()
    const green = await call<DomainRow>('domains.get', { id }, token, 'rest')
    expect(green.body).toMatchObject({
      dnsState: 'verified',
      certState: 'issued',
      failureRemedy: null,
      routeId: expect.any(String),
      nextStep: { title: expect.stringMatching(/backups/i), detail: expect.any(String) },
    })
    expect(stepsOf(green.body)).toEqual([
      ['driver-check', 'passed'],
      ['dns-write', 'passed'],
      ['dns-verify', 'passed'],
      ['route-setup', 'passed'],
      ['certificate', 'passed'],
      ['smoke-test', 'passed'],
    ])
    // The record was there already: the panel counted it and wrote nothing.
    expect(green.body.verification[1]?.detail).toMatch(/already/)
    expect(green.body.certExpiresAt).toBe(agent.certificates.get(hostname)?.notAfter)
    expect(agent.edge.vhosts).toEqual([
      { hostname, upstream: '10.0.0.5:80', issuer: 'pebble', issuable: true },
    ])
    const routes = await ok<{ id: string; status: string; hostname: string }[]>(
      'routes.listForSite',
      { siteId: site.siteId },
      admin,
    )
    expect(routes).toEqual([expect.objectContaining({ id: green.body.routeId, hostname, status: 'active' })])
    // The sequence is idempotent: the same calls again change nothing.
    const again = await call('domains.attach', { siteId: site.siteId, hostname }, token, 'rest')
    expect(again.body).toEqual({ domainId: id, hostname })
    expect(sent).toEqual([])
    expect((await getDomain(id, admin)).dnsState).toBe('verified')
    // Records go with domains:manage; the zones themselves and DNSSEC stay settings:edit.
    const scratch = `scratch.${zone}`
    const written = await call(
      'dnsServers.zones.upsertRecord',
      { id: zoneId, name: scratch, type: 'TXT', ttl: 300, values: ['onboarding'] },
      token,
    )
    expect(written.status, written.text).toBe(200)
    const deleted = await call(
      'dnsServers.zones.deleteRecord',
      { id: zoneId, name: scratch, type: 'TXT' },
      token,
    )
    expect(deleted.status, deleted.text).toBe(200)
    for (const [name, input] of [
      ['dnsServers.zones.create', { name: zoneName('onboarding') }],
      ['dnsServers.zones.setDnssec', { id: zoneId, enabled: true }],
    ] as const) {
      const refused = await call(name, input, token)
      expect(refused.status, `${name}: ${refused.text}`).toBe(403)
    }
  })

  it('should write the record itself when the zone lacks it, and list the domain with the target', async () => {
    const hostname = `shop.${zone}`
    const { domainId } = await attach({ hostname, driver: 'selfhosted', issuer: 'letsencrypt' })
    await everything()
    for (const box of boxes) expect(box.lookup(hostname, 'CNAME')).toEqual([`${target}.`])
    expect(agent.edge.vhosts).toEqual([
      { hostname, upstream: '10.0.0.5:80', issuer: 'letsencrypt', issuable: true },
    ])
    const listed = await ok<{ domains: DomainRow[]; target: string | null }>(
      'domains.list',
      { siteId: site.siteId },
      admin,
    )
    expect(listed.target).toBe(target)
    expect(listed.domains.map((d) => [d.id, d.dnsState, d.certState])).toEqual([
      [domainId, 'verified', 'issued'],
    ])
  })
})

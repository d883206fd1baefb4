import { describe, expect, it } from 'vitest'
import { customHostnameProblem } from '../src/custom-hostnames/hostname'
import { type PlanFacts, planCustomHostname } from '../src/custom-hostnames/planner'

const node = { dnsTarget: 'edge-1.panel.example', publicIpv4: '203.0.113.10', publicIpv6: '2001:db8::10' }

function facts(overrides: Partial<PlanFacts> = {}): PlanFacts {
  return {
    hostname: 'shop.customer.com',
    hostedZones: [],
    accountZones: [],
    allowedZones: [],
    node,
    claim: 'none',
    ...overrides,
  }
}

describe('customHostnameProblem', () => {
  it('should accept lowercase FQDNs, punycode IDNs and names under private suffixes', () => {
    for (const name of [
      'shop.customer.com',
      'a.b.example.co.uk',
      'xn--bcher-kva.example.com',
      'me.github.io',
    ])
      expect(customHostnameProblem(name), name).toBeNull()
  })

  it('should refuse what the spec and the planner rules refuse, each with its reason', () => {
    const cases: [string, RegExp][] = [
      ['Shop.Customer.com', /lowercase/],
      ['*.customer.com', /wildcard/],
      ['203.0.113.10', /IP address/],
      ['2001:db8::1', /IP address/],
      ['localhost', /fully qualified/],
      ['co.uk', /suffix itself/],
      ['github.io', /suffix itself/],
      ['bücher.example.com', /punycode/],
      ['xn--zz.example.com', /punycode/],
      [`${'a'.repeat(64)}.example.com`, /63/],
      [`${'a.'.repeat(126)}com`, /253/],
      ['shop.customer.com.', /trailing dot/],
      ['-shop.customer.com', /labels/],
      ['shop.customer.internal', /public top-level/],
    ]
    for (const [name, reason] of cases)
      expect(customHostnameProblem(name) ?? `accepted ${name}`, name).toMatch(reason)
  })
})

describe('planCustomHostname', () => {
  it('should plan a CNAME to the node target in an external zone and name the registrable domain', () => {
    const plan = planCustomHostname(facts())
    expect(plan).toMatchObject({
      verdict: 'instructions',
      reason: 'external-zone',
      tier: 'external',
      zoneName: 'customer.com',
      cnameTarget: 'edge-1.panel.example',
      registered: false,
      writer: null,
    })
    expect(plan.records).toEqual([
      { type: 'CNAME', name: 'shop.customer.com', value: 'edge-1.panel.example', ttl: 300 },
    ])
  })

  it('should plan A and AAAA records at a zone apex', () => {
    const plan = planCustomHostname(facts({ hostname: 'customer.com' }))
    expect(plan.records).toEqual([
      { type: 'A', name: 'customer.com', value: '203.0.113.10', ttl: 300 },
      { type: 'AAAA', name: 'customer.com', value: '2001:db8::10', ttl: 300 },
    ])
  })

  it('should write into an allow-listed hosted zone and refuse a zone not on the list', () => {
    const hostedZones = [{ id: 'z1', name: 'customer.com' }]
    expect(planCustomHostname(facts({ hostedZones, allowedZones: ['customer.com'] }))).toMatchObject({
      verdict: 'auto',
      reason: null,
      tier: 'hosted',
      writer: { kind: 'hosted', zoneId: 'z1' },
    })
    expect(planCustomHostname(facts({ hostedZones, allowedZones: ['*'] })).verdict).toBe('auto')
    expect(planCustomHostname(facts({ hostedZones, allowedZones: ['other.com'] }))).toMatchObject({
      verdict: 'instructions',
      reason: 'zone-not-allow-listed',
      tier: 'hosted',
      writer: null,
    })
    expect(planCustomHostname(facts({ hostedZones })).reason).toBe('zone-not-allow-listed')
  })

  it('should use the longest matching zone and call two holders of it ambiguous', () => {
    const accountZones = [
      { accountId: 'a1', zoneName: 'customer.com' },
      { accountId: 'a2', zoneName: 'shop.customer.com' },
    ]
    expect(planCustomHostname(facts({ accountZones, allowedZones: ['*'] }))).toMatchObject({
      verdict: 'auto',
      tier: 'connected',
      zoneName: 'shop.customer.com',
      writer: { kind: 'connected', accountId: 'a2' },
    })
    const twice = [...accountZones, { accountId: 'a3', zoneName: 'shop.customer.com' }]
    expect(planCustomHostname(facts({ accountZones: twice, allowedZones: ['*'] }))).toMatchObject({
      verdict: 'instructions',
      reason: 'ambiguous-zone',
      writer: null,
    })
    const alsoHosted = facts({
      accountZones,
      hostedZones: [{ id: 'z1', name: 'shop.customer.com' }],
      allowedZones: ['*'],
    })
    expect(planCustomHostname(alsoHosted).reason).toBe('ambiguous-zone')
  })

  it('should block a collision and a node with nothing to point at, still returning the plan', () => {
    expect(planCustomHostname(facts({ claim: 'elsewhere' }))).toMatchObject({
      verdict: 'blocked',
      reason: 'collision',
    })
    expect(planCustomHostname(facts({ claim: 'this-site' }))).toMatchObject({ registered: true })
    const bare = planCustomHostname(facts({ node: { dnsTarget: null, publicIpv4: null, publicIpv6: null } }))
    expect(bare).toMatchObject({ verdict: 'blocked', reason: 'site_has_no_target', records: [] })
    expect(bare.missingTarget).toMatch(/dnsTarget/)
  })

  it('should point a below-apex name at an address target with an A record', () => {
    const plan = planCustomHostname(
      facts({ node: { dnsTarget: '198.51.100.7', publicIpv4: null, publicIpv6: null } }),
    )
    expect(plan.records).toEqual([{ type: 'A', name: 'shop.customer.com', value: '198.51.100.7', ttl: 300 }])
    expect(plan.cnameTarget).toBe('198.51.100.7')
  })
})

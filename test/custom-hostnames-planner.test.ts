import { describe, expect, it } from 'vitest'
import {
  externalNameProblem,
  hostnameSyntaxProblem,
  registrableDomain,
} from '../src/custom-hostnames/hostname'
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

describe('hostnameSyntaxProblem', () => {
  it('should accept lowercase FQDNs and punycode IDNs whatever their suffix', () => {
    for (const name of [
      'shop.customer.com',
      'a.b.example.co.uk',
      'xn--bcher-kva.example.com',
      'me.github.io',
      'co.uk',
      'shop.customer.test',
      'app.hosted.internal',
      `${'a'.repeat(63)}.com`,
      `${'a.'.repeat(125)}com`,
    ])
      expect(hostnameSyntaxProblem(name), name).toBeNull()
  })

  it('should refuse what the spec refuses, and what no DNS name can be, each with its reason', () => {
    const cases: [string, RegExp][] = [
      ['Shop.Customer.com', /lowercase/],
      ['*.customer.com', /wildcard/],
      ['203.0.113.10', /IP address/],
      ['2001:db8::1', /IP address/],
      ['[2001:db8::1]', /IP address/],
      ['shop.10', /IP address/],
      ['shop.0x7f', /IP address/],
      ['localhost', /fully qualified/],
      ['bücher.example.com', /punycode/],
      ['xn--zz.example.com', /punycode/],
      [`${'a'.repeat(64)}.example.com`, /63/],
      [`${'a.'.repeat(126)}com`, /253/],
      ['shop.customer.com.', /trailing dot/],
      ['-shop.customer.com', /labels/],
      ['shop..customer.com', /labels/],
    ]
    for (const [name, reason] of cases)
      expect(hostnameSyntaxProblem(name) ?? `accepted ${name}`, name).toMatch(reason)
  })
})

describe('externalNameProblem', () => {
  it('should take names under a public or private suffix, never the suffix itself', () => {
    for (const allowed of [false, true]) {
      expect(externalNameProblem('shop.customer.com', allowed)).toBeNull()
      expect(externalNameProblem('me.github.io', allowed)).toBeNull()
      expect(externalNameProblem('co.uk', allowed)).toMatch(/suffix itself/)
      expect(externalNameProblem('github.io', allowed)).toMatch(/suffix itself/)
      expect(externalNameProblem('shop.customer.nosuchtld', allowed)).toMatch(/public top-level/)
    }
  })

  it('should take special-use names only when they are allowed, and never the special-use name itself', () => {
    for (const name of [
      'shop.customer.test',
      'a.b.example',
      'x.invalid',
      'app.localhost',
      'metadata.google.internal',
      'nas.home.arpa',
    ]) {
      expect(externalNameProblem(name, false), name).toMatch(/special-use/)
      expect(externalNameProblem(name, true), name).toBeNull()
    }
    expect(externalNameProblem('home.arpa', true)).toMatch(/not \.home\.arpa itself/)
  })

  it('should name the registrable domain of a special-use name as its suffix plus one label', () => {
    expect(registrableDomain('shop.customer.test')).toBe('customer.test')
    expect(registrableDomain('a.nas.home.arpa')).toBe('nas.home.arpa')
    expect(registrableDomain('a.b.example.co.uk')).toBe('example.co.uk')
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
    expect(bare).toMatchObject({ verdict: 'instructions', reason: 'site_has_no_target', records: [] })
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

import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Diagnosis, Verdict } from '../../src/diagnosis/schema'
import { type SiteFixture, siteWithToken, zoneName } from '../custom-hostnames/fixture'
import { captureJobs, type SentJob } from '../dns-servers/run-job'
import { type Caller, ok } from '../helpers/http'
import { drainJobs } from '../helpers/jobs'
import { adminSession } from '../helpers/principals'
import { enrollPeerBoxes } from './peers'

// The diagnosis read from the real resolver (dnsdist's DoH in front of the PowerDNS boxes) and the real zone:
// ok, wrong, missing, an AAAA someone else left in the way, and a stale _acme-challenge record.

describe('the diagnosis against real PowerDNS', () => {
  let admin: Caller
  let site: SiteFixture
  let zone: { id: string; name: string }
  let sent: SentJob[] = []

  beforeAll(async () => {
    admin = await adminSession()
    await enrollPeerBoxes(admin, 'diagnosis')
  })

  beforeEach(async () => {
    sent = captureJobs()
    site = await siteWithToken(admin)
    zone = await ok('dnsServers.zones.create', { name: zoneName('peer-diagnosis') }, admin)
    await ok('customHostnames.settings.set', { siteId: site.siteId, allowedZones: [zone.name] }, admin)
  })

  const register = (hostname: string) =>
    ok<{ state: string }>('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
  const check = (hostname: string) =>
    ok<{ state: string; diagnosis: Diagnosis }>(
      'customHostnames.check',
      { siteId: site.siteId, hostname },
      site.app,
    )
  const upsert = (name: string, type: string, values: string[]) =>
    ok('dnsServers.zones.upsertRecord', { id: zone.id, name, type, ttl: 120, values }, admin)
  const kinds = (verdicts: Verdict[]) => verdicts.map((v) => [v.kind, v.type, v.fixable, ...v.observed])

  it('should answer ok for the apex the panel wrote, then an AAAA someone else added in the way', async () => {
    await register(zone.name)
    await drainJobs(sent, 'custom-hostname.')
    const green = await check(zone.name)
    expect(green.state).toBe('active')
    expect(kinds(green.diagnosis.verdicts)).toEqual([['ok', 'A', false, '203.0.113.10']])
    expect(green.diagnosis.observed).toMatchObject([
      {
        source: 'resolver',
        rcode: 'NOERROR',
        records: [{ type: 'A', name: zone.name, value: '203.0.113.10' }],
      },
      {
        source: 'zone',
        error: null,
        records: [{ type: 'A', name: zone.name, value: '203.0.113.10', ttl: 300 }],
      },
    ])

    await upsert(zone.name, 'AAAA', ['2001:db8::7'])
    const split = await check(zone.name)
    expect(kinds(split.diagnosis.verdicts)).toEqual([
      ['ok', 'A', false, '203.0.113.10'],
      ['in-the-way', 'AAAA', false, '2001:db8::7'],
    ])
    expect(split.diagnosis.verdicts[1]?.detail).toContain('IPv6')
    expect(split.diagnosis.observed[0]?.records).toContainEqual({
      type: 'AAAA',
      name: zone.name,
      value: '2001:db8::7',
      ttl: 120,
    })
  })

  it('should answer missing (the queued write fixes it) and wrong (the customer must change it)', async () => {
    const missing = `missing.${zone.name}`
    expect((await register(missing)).state).toBe('pending')
    const before = await check(missing)
    expect(kinds(before.diagnosis.verdicts)).toEqual([['missing', 'CNAME', true]])
    expect(before.diagnosis.observed[0]).toMatchObject({ rcode: 'NXDOMAIN', error: null, records: [] })

    const wrong = `wrong.${zone.name}`
    await upsert(wrong, 'CNAME', ['old-cdn.example.net'])
    expect((await register(wrong)).state).toBe('instructions')
    const answer = await check(wrong)
    expect(kinds(answer.diagnosis.verdicts)).toEqual([['wrong', 'CNAME', false, 'old-cdn.example.net']])
    expect(answer.diagnosis.verdicts[0]?.detail).toContain('Change it to CNAME')
  })

  it('should name an _acme-challenge record the node did not make as stale', async () => {
    await register(zone.name)
    await drainJobs(sent, 'custom-hostname.')
    await upsert(`_acme-challenge.${zone.name}`, 'TXT', ['left-by-an-old-certificate'])
    const answer = await check(zone.name)
    expect(kinds(answer.diagnosis.verdicts)).toEqual([
      ['ok', 'A', false, '203.0.113.10'],
      ['stale-acme-challenge', 'TXT', false, '"left-by-an-old-certificate"'],
    ])
    expect(answer.diagnosis.verdicts[1]?.detail).toContain('delete it')
  })
})

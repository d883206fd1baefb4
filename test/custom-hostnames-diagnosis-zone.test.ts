import { beforeEach, describe, expect, it } from 'vitest'
import type { Diagnosis, Verdict } from '../src/diagnosis/schema'
import type { SiteFixture } from './custom-hostnames/fixture'
import { hostedZones } from './custom-hostnames/hosted-zone'
import type { SentJob } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { type Caller, ok } from './helpers/http'
import { drainJobs } from './helpers/jobs'

// A Hosted zone: the diagnosis also reads what the zone holds at the name, and says fixable only where the
// panel's next write really fixes the verdict (it writes what is missing and deletes what it wrote for an older
// plan, never someone else's record).

const hosted = hostedZones('diagzone')
const { boxes } = hosted
let admin: Caller
let sent: SentJob[]
let site: SiteFixture
let zone: string
let doh: FakeDoh

beforeEach(async () => {
  ;({ admin, sent, site, zone } = await hosted.fresh())
  doh = new FakeDoh().install()
})

const register = (hostname: string) =>
  ok<{ state: string; records: { value: string }[] }>(
    'customHostnames.register',
    { siteId: site.siteId, hostname },
    site.app,
  )
const check = (hostname: string) =>
  ok<{ state: string; diagnosis: Diagnosis }>(
    'customHostnames.check',
    { siteId: site.siteId, hostname },
    site.app,
  )
const kinds = (verdicts: Verdict[]) => verdicts.map((v) => [v.kind, v.type, v.fixable])

/** Puts a record at the name on every box, as someone editing the zone outside the panel would. */
function foreignRecord(hostname: string, type: string, content: string): void {
  for (const box of boxes) {
    const held = box.zones.get(`${zone}.`)
    if (!held) throw new Error(`no zone ${zone} on ${box.origin}`)
    held.rrsets.push({ name: `${hostname}.`, type, ttl: 300, records: [{ content, disabled: false }] })
  }
}

describe('the zone beside the resolver', () => {
  it('should say the panel fixes a missing record while its write is queued, and show the zone read', async () => {
    const hostname = `queued.${zone}`
    expect((await register(hostname)).state).toBe('pending')
    const { diagnosis } = await check(hostname)
    expect(kinds(diagnosis.verdicts)).toEqual([['missing', 'CNAME', true]])
    expect(diagnosis.verdicts[0]?.detail).toContain(`next write into the zone ${zone}, already queued`)
    expect(diagnosis.observed.map((set) => [set.source, set.error, set.records])).toEqual([
      ['resolver', null, []],
      ['zone', null, []],
    ])
  })

  it("should not call fixable what someone else's AAAA blocks, and name it in the way", async () => {
    const hostname = `blocked.${zone}`
    expect((await register(hostname)).state).toBe('pending')
    foreignRecord(hostname, 'AAAA', '2001:db8::7')
    doh.set(hostname, 'AAAA', ['2001:db8::7'])
    const { diagnosis } = await check(hostname)
    expect(kinds(diagnosis.verdicts)).toEqual([
      ['missing', 'CNAME', false],
      ['in-the-way', 'AAAA', false],
    ])
    expect(diagnosis.verdicts[1]?.detail).toContain(`Delete it in the DNS of the zone ${zone}`)
    expect(diagnosis.observed[1]?.records).toEqual([
      { type: 'AAAA', name: hostname, value: '2001:db8::7', ttl: 300 },
    ])
  })

  it('should call fixable the CNAME the panel wrote for an older plan, which its queued write replaces', async () => {
    const hostname = `moved.${zone}`
    const first = await register(hostname)
    await drainJobs(sent, 'custom-hostname.')
    const old = first.records[0]?.value ?? ''
    await ok('nodes.update', { id: site.nodeId, dnsTarget: 'edge-moved.example.net' }, admin)
    expect((await register(hostname)).state).toBe('pending')
    doh.set(hostname, 'CNAME', [`${old}.`])
    const { diagnosis } = await check(hostname)
    expect(diagnosis.verdicts).toMatchObject([
      { kind: 'wrong', type: 'CNAME', expected: 'edge-moved.example.net', observed: [old], fixable: true },
    ])
    expect(diagnosis.observed[1]?.records).toMatchObject([{ type: 'CNAME', value: old }])
  })

  it('should name a CNAME beside other records in the zone, which a resolver never shows', async () => {
    const hostname = `beside.${zone}`
    const { records } = await register(hostname)
    await drainJobs(sent, 'custom-hostname.')
    const target = records[0]?.value ?? ''
    foreignRecord(hostname, 'TXT', '"site-verification=abc"')
    doh.set(hostname, 'CNAME', [`${target}.`])
    const { state, diagnosis } = await check(hostname)
    expect(state).toBe('active')
    expect(kinds(diagnosis.verdicts)).toEqual([
      ['ok', 'CNAME', false],
      ['cname-beside-others', 'CNAME', false],
    ])
    expect(diagnosis.verdicts[1]?.observed).toEqual([`CNAME ${target}`, 'TXT site-verification=abc'])
  })
})

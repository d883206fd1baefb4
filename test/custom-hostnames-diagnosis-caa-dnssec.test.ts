import { beforeEach, describe, expect, it } from 'vitest'
import type { Diagnosis } from '../src/diagnosis/schema'
import { siteWithToken, zoneName } from './custom-hostnames/fixture'
import { FakeDoh } from './fakes/doh'
import { ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// The CAA and DNSSEC verdicts through customHostnames.check: the CA the site's node uses (Let's Encrypt unless
// its ssl-issuer is pebble) judged against the CAA set a CA would find, and a zone whose signatures fail.

let doh: FakeDoh
beforeEach(() => {
  doh = new FakeDoh().install()
})

async function registered(label: string) {
  const site = await siteWithToken(await adminSession())
  const zone = zoneName(label)
  const hostname = `shop.${zone}`
  const answer = await ok<{ records: { value: string }[] }>(
    'customHostnames.register',
    { siteId: site.siteId, hostname },
    site.app,
  )
  const target = answer.records[0]?.value ?? ''
  doh.set(hostname, 'CNAME', [`${target}.`])
  const check = () =>
    ok<{ dns: { resolves: boolean }; diagnosis: Diagnosis }>(
      'customHostnames.check',
      { siteId: site.siteId, hostname },
      site.app,
    )
  return { zone, hostname, check }
}

describe('CAA', () => {
  it("should name the CA the node uses and the record to add when the zone's CAA set forbids it", async () => {
    const { zone, hostname, check } = await registered('diag-caa')
    doh.set(zone, 'CAA', ['0 issue "sectigo.com"'])
    const answer = await check()
    expect(answer.dns.resolves).toBe(true)
    const caa = answer.diagnosis.verdicts.filter((verdict) => verdict.kind === 'caa-forbids')
    expect(caa).toMatchObject([
      {
        type: 'CAA',
        name: zone,
        observed: ['0 issue "sectigo.com"'],
        fixable: false,
        add: { type: 'CAA', name: zone, value: '0 issue "letsencrypt.org"' },
      },
    ])
    expect(caa[0]?.detail).toContain(hostname)
  })

  it('should add no verdict when the CAA set lets the CA issue', async () => {
    const { zone, check } = await registered('diag-caa-ok')
    doh.set(zone, 'CAA', ['0 issue "letsencrypt.org"'])
    expect((await check()).diagnosis.verdicts.map((verdict) => verdict.kind)).toEqual(['ok'])
  })
})

describe('DNSSEC', () => {
  it('should name a zone whose signatures do not validate as that, not as a resolver that failed', async () => {
    const { zone, check } = await registered('diag-bogus')
    doh.bogus(zone)
    const answer = await check()
    expect(answer.dns.resolves).toBe(false)
    expect(answer.diagnosis.verdicts.map((verdict) => verdict.kind)).toEqual(['dnssec-invalid'])
  })
})

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

/** Makes a pebble account the ssl-issuer default at the scope (a node or an instance). */
async function pebbleDefault(scope: 'node' | 'instance', scopeId: string) {
  const admin = await adminSession()
  const token =
    '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----'
  const account = await ok<{ id: string }>(
    'accounts.create',
    { kind: 'ssl-issuer', name: `pebble-${crypto.randomUUID().slice(0, 6)}`, provider: 'pebble', token },
    admin,
  )
  await ok('accounts.setDefault', { scope, scopeId, kind: 'ssl-issuer', accountId: account.id }, admin)
}

async function registered(label: string, issuer?: 'node' | 'instance') {
  const site = await siteWithToken(await adminSession())
  if (issuer) await pebbleDefault(issuer, issuer === 'node' ? site.nodeId : site.instanceId)
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

  it("should judge for the CA of the site's ssl-issuer default, set on its node or on its instance", async () => {
    for (const scope of ['node', 'instance'] as const) {
      const { zone, check } = await registered(`diag-caa-${scope}`, scope)
      doh.set(zone, 'CAA', ['0 issue "letsencrypt.org"'])
      expect(
        (await check()).diagnosis.verdicts.find((verdict) => verdict.kind === 'caa-forbids'),
      ).toMatchObject({
        add: { type: 'CAA', name: zone, value: '0 issue "pebble.letsencrypt.org"' },
      })
    }
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

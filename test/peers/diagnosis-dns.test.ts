import { describe, expect, it } from 'vitest'
import { caaVerdicts } from '../../src/diagnosis/caa'
import { dnssecVerdicts } from '../../src/diagnosis/dnssec'
import { dohLookup } from '../../src/outside/doh'
import { control, peers } from './peers'

// The ground truth of the diagnosis's CAA and DNSSEC verdicts: a real validating resolver (pdns_recursor) behind
// dnsdist's DoH, over zones a real PowerDNS box signed (pdnsutil secure-zone) and CAA records it serves
// (dns-fixture-zones.ts). bogus.test's trust anchor matches none of its keys, as a stale DS at the registrar.

const { url, box } = peers.validating

async function replaceCaa(name: string, values: string[]): Promise<void> {
  const response = await fetch(`${box.apiUrl}/api/v1/servers/localhost/zones/signed.test.`, {
    method: 'PATCH',
    headers: { 'x-api-key': box.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      rrsets: [
        {
          name: `${name}.`,
          type: 'CAA',
          ttl: 300,
          changetype: 'REPLACE',
          records: values.map((content) => ({ content, disabled: false })),
        },
      ],
    }),
  })
  expect(response.status).toBe(204)
  await control('POST', `/validating/wipe-cache?name=${name}`)
}

describe('CAA and DNSSEC verdicts against a validating resolver over real PowerDNS', () => {
  it('should read CAA records in presentation form, and the validated and unchecked answers', async () => {
    expect(await dohLookup(url, 'critical.signed.test', 'CAA')).toMatchObject({
      status: 0,
      data: expect.arrayContaining(['128 tbs "unknown"', '0 issue "letsencrypt.org"']),
    })
    expect(await dohLookup(url, 'www.bogus.test', 'A')).toMatchObject({ status: 2, data: [] })
    expect(await dohLookup(url, 'www.bogus.test', 'A', undefined, { checkingDisabled: true })).toMatchObject({
      status: 0,
      data: ['127.0.0.1'],
    })
  })

  it('should name the zone whose signatures do not validate, and nothing for a valid one or a plain NXDOMAIN', async () => {
    expect(await dnssecVerdicts(url, 'www.bogus.test')).toMatchObject([
      { kind: 'dnssec-invalid', name: 'www.bogus.test', detail: expect.stringMatching(/DS record/) },
    ])
    expect(await dnssecVerdicts(url, 'missing.bogus.test')).toMatchObject([{ kind: 'dnssec-invalid' }])
    expect(await dnssecVerdicts(url, 'www.signed.test')).toEqual([])
    expect(await dnssecVerdicts(url, 'missing.signed.test')).toEqual([])
    expect(await dnssecVerdicts(url, 'nowhere.test')).toEqual([])
  })

  it('should let the CA issue with no CAA up to the TLD or with a set naming it', async () => {
    for (const issuer of ['letsencrypt', 'pebble'] as const) {
      expect(await caaVerdicts(url, 'www.signed.test', issuer)).toEqual([])
      expect(await caaVerdicts(url, 'allowed.signed.test', issuer)).toEqual([])
    }
  })

  it('should name where a forbidding set was found: the name, a parent, or the target of its CNAME', async () => {
    expect(await caaVerdicts(url, 'forbidden.signed.test', 'letsencrypt')).toMatchObject([
      {
        kind: 'caa-forbids',
        name: 'forbidden.signed.test',
        observed: ['0 issue "sectigo.com"'],
        add: { type: 'CAA', name: 'forbidden.signed.test', value: '0 issue "letsencrypt.org"' },
      },
    ])
    expect(await caaVerdicts(url, 'www.sub.signed.test', 'pebble')).toMatchObject([
      {
        kind: 'caa-forbids',
        name: 'sub.signed.test',
        add: { type: 'CAA', name: 'sub.signed.test', value: '0 issue "pebble.letsencrypt.org"' },
      },
    ])
    expect(await caaVerdicts(url, 'alias.signed.test', 'letsencrypt')).toMatchObject([
      {
        kind: 'caa-forbids',
        name: 'alias.signed.test',
        add: { type: 'CAA', name: 'forbidden.signed.test', value: '0 issue "letsencrypt.org"' },
      },
    ])
  })

  it('should forbid on a critical unknown property, and leave a bogus zone to the DNSSEC verdict', async () => {
    const [critical, ...others] = await caaVerdicts(url, 'critical.signed.test', 'letsencrypt')
    expect(others).toEqual([])
    expect(critical).toMatchObject({ kind: 'caa-forbids', name: 'critical.signed.test' })
    expect(critical).not.toHaveProperty('add')
    expect(critical?.detail).toMatch(/128 tbs "unknown", a critical property/)
    expect(await caaVerdicts(url, 'www.bogus.test', 'letsencrypt')).toEqual([])
  })

  it('should let the CA issue once the record the verdict names is added', async () => {
    const [verdict] = await caaVerdicts(url, 'fixme.signed.test', 'letsencrypt')
    expect(verdict?.add).toEqual({
      type: 'CAA',
      name: 'fixme.signed.test',
      value: '0 issue "letsencrypt.org"',
    })
    await replaceCaa('fixme.signed.test', ['0 issue "sectigo.com"', verdict?.add?.value ?? ''])
    expect(await caaVerdicts(url, 'fixme.signed.test', 'letsencrypt')).toEqual([])
  })
})

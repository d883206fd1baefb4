import { describe, expect, it } from 'vitest'
import { admin, counter, enrollInput, type NameserverRow } from './dns-servers/nameservers-fixture'
import { FakeDoh } from './fakes/doh'
import { call, ok } from './helpers/http'

describe('dnsServers.nameservers.verifyGlue', () => {
  it('should record a matching glue check as the NS-health, and a mismatch with its detail', async () => {
    const input = enrollInput()
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', input, admin)
    const doh = new FakeDoh().install()
    doh
      .set(input.hostname, 'A', [input.publicIpv4])
      .set(input.hostname, 'AAAA', [`2001:0db8:0:0::${counter}`])
    const good = await ok<{ ok: boolean; expected: string[]; found: string[] }>(
      'dnsServers.nameservers.verifyGlue',
      { id: row.id },
      admin,
    )
    expect(good).toMatchObject({ ok: true, expected: [input.publicIpv4, input.publicIpv6].sort() })
    doh.set(input.hostname, 'A', ['203.0.113.9'])
    const bad = await ok<{ ok: boolean; detail: string }>(
      'dnsServers.nameservers.verifyGlue',
      { id: row.id },
      admin,
    )
    expect(bad.ok).toBe(false)
    expect(bad.detail).toContain(`missing ${input.publicIpv4}`)
    expect(bad.detail).toContain('unexpected 203.0.113.9')
    expect(bad.detail).toContain(`the A and AAAA records a recursive resolver returns for ${input.hostname}`)
    expect(bad.detail).toContain("not the registrar's glue")
    const listed = (await ok<NameserverRow[]>('dnsServers.nameservers.list', {}, admin)).find(
      (r) => r.id === row.id,
    )
    expect(listed?.health).toMatchObject({ ok: false, detail: bad.detail })
    expect(listed?.health.checkedAt).toEqual(expect.any(String))
  })

  it('should answer 502 without recording anything when the resolver fails', async () => {
    const row = await ok<NameserverRow>('dnsServers.nameservers.enroll', enrollInput(), admin)
    const doh = new FakeDoh().install()
    doh.httpStatus = 503
    const response = await call('dnsServers.nameservers.verifyGlue', { id: row.id }, admin)
    expect(response.status, response.text).toBe(502)
    expect(
      (await ok<NameserverRow>('dnsServers.nameservers.get', { id: row.id }, admin)).health.checkedAt,
    ).toBeNull()
  })
})

import { describe, expect, it } from 'vitest'
import { cloudflareFake } from './fakes/provider-a-cloudflare'
import { admin, createDns, DNS_ROW_KEYS, installed, type Row, uniqueName } from './helpers/dns-accounts'
import { call, ok } from './helpers/http'
import { interceptOutbound, outboundRequests } from './helpers/outbound'

describe('git and ssl-issuer accounts', () => {
  it('should check the token format only, say so, call nobody, and answer a row without zoneId', async () => {
    interceptOutbound()
    const github = await ok<Row>(
      'accounts.create',
      { kind: 'git', name: uniqueName('gh'), provider: 'github', token: `ghp_${'a1B2'.repeat(9)}` },
      admin,
    )
    expect(Object.keys(github).sort()).toEqual(DNS_ROW_KEYS.filter((key) => key !== 'zoneId'))
    expect(github.lastTestState.ok).toBe(true)
    expect(github.lastTestState.detail).toContain('format check only; the token was not sent to GitHub')
    const zerossl = await ok<Row>(
      'accounts.create',
      { kind: 'ssl-issuer', name: uniqueName('zs'), provider: 'zerossl', token: 'not-a-key' },
      admin,
    )
    expect(zerossl.lastTestState).toMatchObject({ ok: false })
    expect(zerossl.lastTestState.detail).toContain('expected 32 hexadecimal characters')
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----'
    const le = await ok<Row>(
      'accounts.create',
      { kind: 'ssl-issuer', name: uniqueName('le'), provider: 'letsencrypt', token: pem },
      admin,
    )
    expect(le.lastTestState.ok).toBe(true)
    const zones = await call('accounts.zones', { id: github.id }, admin)
    expect(zones.status, zones.text).toBe(400)
    expect(outboundRequests()).toEqual([])
  })

  it('should list by kind', async () => {
    const fake = installed(cloudflareFake())
    const dns = await createDns(fake)
    const gitlab = await ok<Row>(
      'accounts.create',
      { kind: 'git', name: uniqueName('gl'), provider: 'gitlab', token: `glpat-${'x'.repeat(20)}` },
      admin,
    )
    const dnsList = await ok<Row[]>('accounts.list', { kind: 'dns' }, admin)
    expect(dnsList.map((row) => row.provider).every((p) => p.startsWith('provider_'))).toBe(true)
    expect(dnsList.map((row) => row.id)).toContain(dns.id)
    const gitList = await ok<Row[]>('accounts.list', { kind: 'git' }, admin)
    expect(gitList[0]?.id).toBe(gitlab.id)
    expect(gitList.map((row) => row.id)).not.toContain(dns.id)
    const all = await ok<Row[]>('accounts.list', {}, admin)
    expect(all.map((row) => row.id)).toEqual(expect.arrayContaining([dns.id, gitlab.id]))
  })
})

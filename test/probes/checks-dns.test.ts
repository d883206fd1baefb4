import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/env'
import { runCheck } from '../../src/probes/checks/run-check'
import { type DnsConfig, DnsConfigSchema } from '../../src/probes/config'
import { FakeDoh } from '../fakes/doh'

// dns checks ask the operator's DoH resolver (DOH_RESOLVER_URL), here the fake RFC 8484 resolver.

const workerEnv = env as unknown as Env
let doh: FakeDoh

function check(target: string, config: Partial<DnsConfig> = {}) {
  const probe = {
    id: 'probe-dns',
    type: 'dns' as const,
    targetKind: 'external' as const,
    targetId: null,
    target,
    config: DnsConfigSchema.parse(config),
  }
  return runCheck(workerEnv, probe, 'probe-dns:1')
}

beforeEach(() => {
  doh = new FakeDoh().install()
  doh.set('www.example.com', 'A', ['192.0.2.1', '192.0.2.2'])
})

describe('dns check', () => {
  it('should be up on any answer when no values are expected', async () => {
    const result = await check('www.example.com')
    expect(result).toMatchObject({ checkId: 'probe-dns:1', outcome: 'up', detail: 'A 192.0.2.1, 192.0.2.2' })
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('should be up when every expected value is in the answer', async () => {
    expect(await check('www.example.com', { expectedValues: ['192.0.2.2', '192.0.2.1'] })).toMatchObject({
      outcome: 'up',
      detail: 'A 192.0.2.1, 192.0.2.2',
    })
  })

  it('should be degraded when only some are, naming the missing ones', async () => {
    expect(
      await check('www.example.com', { expectedValues: ['192.0.2.1', '192.0.2.3', '192.0.2.4'] }),
    ).toMatchObject({
      outcome: 'degraded',
      detail: 'A is missing 192.0.2.3, 192.0.2.4 (answer: 192.0.2.1, 192.0.2.2)',
    })
  })

  it('should be down when none is', async () => {
    expect(await check('www.example.com', { expectedValues: ['192.0.2.9'] })).toMatchObject({
      outcome: 'down',
      detail: 'A is missing 192.0.2.9 (answer: 192.0.2.1, 192.0.2.2)',
    })
  })

  it('should compare names, addresses and TXT strings the way DNS means them', async () => {
    doh
      .set('alias.example.com', 'CNAME', ['target.example.net.'])
      .set('v6.example.com', 'AAAA', ['2001:db8::1'])
      .set('example.com', 'TXT', ['"v=spf1 " "-all"'])
      .set('example.com', 'MX', ['10 mx.example.com.'])
    expect(
      await check('alias.example.com', { recordType: 'CNAME', expectedValues: ['Target.Example.NET'] }),
    ).toMatchObject({ outcome: 'up', detail: 'CNAME target.example.net.' })
    expect(
      await check('v6.example.com', { recordType: 'AAAA', expectedValues: ['2001:0db8:0:0::1'] }),
    ).toMatchObject({ outcome: 'up' })
    expect(await check('example.com', { recordType: 'TXT', expectedValues: ['v=spf1 -all'] })).toMatchObject({
      outcome: 'up',
    })
    expect(
      await check('example.com', { recordType: 'MX', expectedValues: ['10 MX.example.com'] }),
    ).toMatchObject({
      outcome: 'up',
    })
  })

  it('should be down on NXDOMAIN, an empty answer or a failing resolver', async () => {
    doh.set('gone.example.com', 'A', [], 3)
    expect(await check('gone.example.com')).toMatchObject({
      outcome: 'down',
      detail: 'NXDOMAIN: gone.example.com does not exist',
    })
    expect(await check('empty.example.com')).toMatchObject({ outcome: 'down', detail: 'no A records' })
    doh.set('broken.example.com', 'A', [], 2)
    expect(await check('broken.example.com')).toMatchObject({
      outcome: 'down',
      detail: 'the DNS resolver answered SERVFAIL',
    })
    doh.httpStatus = 503
    expect(await check('www.example.com')).toMatchObject({
      outcome: 'down',
      detail: 'the DNS resolver https://cloudflare-dns.com answered HTTP 503',
      latencyMs: null,
    })
  })
})

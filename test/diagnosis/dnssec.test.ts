import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { dnssecVerdicts } from '../../src/diagnosis/dnssec'
import type { Env } from '../../src/env'
import { FakeDoh } from '../fakes/doh'
import { dohQuestion } from '../fakes/doh-wire'
import { outboundRequests } from '../helpers/outbound'

// A validating resolver answers SERVFAIL for a name in a zone whose signatures do not validate; the same query
// with CD (checking disabled) gets the records. The fake resolver plays both (FakeDoh.bogus).

const resolverUrl = (env as unknown as Env).DOH_RESOLVER_URL
const HOST = 'shop.example.com'
let doh: FakeDoh

beforeEach(() => {
  doh = new FakeDoh().install()
})

describe('dnssecVerdicts', () => {
  it('should name a zone whose signatures do not validate, and say what to fix, never "not resolving"', async () => {
    doh.bogus('example.com').set(HOST, 'A', ['192.0.2.10'])
    const verdicts = await dnssecVerdicts(resolverUrl, HOST)
    expect(verdicts).toEqual([
      {
        kind: 'dnssec-invalid',
        type: null,
        name: HOST,
        expected: null,
        observed: [],
        fixable: false,
        detail: `DNSSEC validation fails for ${HOST}: a validating resolver answers SERVFAIL, while the same lookup without validation answers. The zone's signatures do not match the DS record its parent publishes (set at the registrar). Usually the DS at the registrar is for an old or another key: replace it with the DS of the zone's current key, or remove the DS to turn DNSSEC off.`,
      },
    ])
    expect(verdicts[0]?.detail).not.toMatch(/not resolv/i)
    const asked = outboundRequests().map((request) => dohQuestion(request))
    expect(asked).toEqual([
      { name: HOST, type: 'A', checkingDisabled: false },
      { name: HOST, type: 'A', checkingDisabled: true },
    ])
  })

  it('should count a name missing from a bogus zone (NXDOMAIN without validation) as DNSSEC too', async () => {
    doh.bogus('example.com').set(HOST, 'A', [], 3)
    expect(await dnssecVerdicts(resolverUrl, HOST)).toMatchObject([{ kind: 'dnssec-invalid', name: HOST }])
  })

  it('should say nothing for a zone that validates, asking once', async () => {
    doh.set(HOST, 'A', ['192.0.2.10'])
    expect(await dnssecVerdicts(resolverUrl, HOST)).toEqual([])
    expect(outboundRequests()).toHaveLength(1)
  })

  it('should say nothing for a plain NXDOMAIN', async () => {
    doh.set(HOST, 'A', [], 3)
    expect(await dnssecVerdicts(resolverUrl, HOST)).toEqual([])
  })

  it('should not blame DNSSEC when the lookup fails without validation as well', async () => {
    doh.set(HOST, 'A', [], 2)
    expect(await dnssecVerdicts(resolverUrl, HOST)).toEqual([])
  })

  it('should say nothing when the resolver does not answer (the diagnosis reports that once)', async () => {
    doh.httpStatus = 503
    expect(await dnssecVerdicts(resolverUrl, HOST)).toEqual([])
  })
})

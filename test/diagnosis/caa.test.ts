import { env } from 'cloudflare:workers'
import { beforeEach, describe, expect, it } from 'vitest'
import { caaVerdicts } from '../../src/diagnosis/caa'
import type { Env } from '../../src/env'
import { FakeDoh } from '../fakes/doh'
import { dohQuestion } from '../fakes/doh-wire'
import { outboundRequests } from '../helpers/outbound'

// The CAA set a CA reads (RFC 8659 section 3: the name, then each parent up to the TLD, the first non-empty set
// wins) against the fake RFC 8484 resolver, which follows no CNAME itself: a test that needs the resolver's
// alias-following publishes the target's CAA answer at the alias, as a resolver would answer it.

const resolverUrl = (env as unknown as Env).DOH_RESOLVER_URL
const HOST = 'www.shop.example.com'
let doh: FakeDoh

beforeEach(() => {
  doh = new FakeDoh().install()
})

const caaQuestions = () =>
  outboundRequests()
    .map((request) => dohQuestion(request))
    .filter((question) => question?.type === 'CAA')
    .map((question) => question?.name)

describe('caaVerdicts', () => {
  it('should find nothing in the way when no name up to the TLD holds CAA records, asking each of them', async () => {
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([])
    expect(caaQuestions().sort()).toEqual(['com', 'example.com', 'shop.example.com', HOST].sort())
  })

  it("should let the CA issue when the name's set names it, whatever a parent's set says", async () => {
    doh.set(HOST, 'CAA', [
      '0 issue "LetsEncrypt.org; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/1"',
    ])
    doh.set('example.com', 'CAA', ['0 issue ";"'])
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([])
  })

  it('should let any CA issue when the set holds no issue property (iodef only)', async () => {
    doh.set('example.com', 'CAA', ['0 iodef "mailto:security@example.com"'])
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([])
  })

  it('should name the CA, the name and the record to add when the set at the name names another CA', async () => {
    doh.set(HOST, 'CAA', ['0 issue "sectigo.com"', '0 iodef "mailto:security@example.com"'])
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([
      {
        kind: 'caa-forbids',
        type: 'CAA',
        name: HOST,
        expected: null,
        observed: ['0 issue "sectigo.com"', '0 iodef "mailto:security@example.com"'],
        fixable: false,
        detail: `The CAA records at ${HOST} let only sectigo.com issue certificates for ${HOST}, so Let's Encrypt (letsencrypt.org), the CA the node uses, refuses to. Add the CAA record ${HOST} CAA 0 issue "letsencrypt.org" beside them.`,
        add: { type: 'CAA', name: HOST, value: '0 issue "letsencrypt.org"' },
      },
    ])
  })

  it('should climb to the first parent holding a set and name that parent', async () => {
    doh.set('shop.example.com', 'CAA', [], 3)
    doh.set('example.com', 'CAA', ['0 issue "digicert.com"', '0 issue "sectigo.com"'])
    doh.set('com', 'CAA', ['0 issue "letsencrypt.org"'])
    const [verdict, ...others] = await caaVerdicts(resolverUrl, HOST, 'letsencrypt')
    expect(others).toEqual([])
    expect(verdict).toMatchObject({
      kind: 'caa-forbids',
      name: 'example.com',
      observed: ['0 issue "digicert.com"', '0 issue "sectigo.com"'],
      add: { type: 'CAA', name: 'example.com', value: '0 issue "letsencrypt.org"' },
    })
    expect(verdict?.detail).toBe(
      `The CAA records at example.com let only digicert.com, sectigo.com issue certificates for ${HOST}, so Let's Encrypt (letsencrypt.org), the CA the node uses, refuses to. Add the CAA record example.com CAA 0 issue "letsencrypt.org" beside them.`,
    )
  })

  it('should forbid on a critical property the CA does not know, even beside an issue naming the CA', async () => {
    doh.set('example.com', 'CAA', ['128 tbs "unknown"', '0 issue "letsencrypt.org"'])
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([
      {
        kind: 'caa-forbids',
        type: 'CAA',
        name: 'example.com',
        expected: null,
        observed: ['128 tbs "unknown"', '0 issue "letsencrypt.org"'],
        fixable: false,
        detail: `The CAA records at example.com hold 128 tbs "unknown", a critical property Let's Encrypt (letsencrypt.org), the CA the node uses, does not know, so it refuses to issue certificates for ${HOST}. Remove that record, or set its flags to 0.`,
      },
    ])
  })

  it('should say both what to remove and what to add when a critical unknown property sits beside another CA', async () => {
    doh.set(HOST, 'CAA', ['128 tbs "unknown"', '0 issue "sectigo.com"'])
    const [verdict] = await caaVerdicts(resolverUrl, HOST, 'letsencrypt')
    expect(verdict?.detail).toBe(
      `The CAA records at ${HOST} hold 128 tbs "unknown", a critical property Let's Encrypt (letsencrypt.org), the CA the node uses, does not know, so it refuses to issue certificates for ${HOST}. Remove that record, or set its flags to 0. They also let only sectigo.com issue: add the CAA record ${HOST} CAA 0 issue "letsencrypt.org" beside them.`,
    )
    expect(verdict?.add).toEqual({ type: 'CAA', name: HOST, value: '0 issue "letsencrypt.org"' })
  })

  it('should forbid every CA on an issue property that names none', async () => {
    doh.set(HOST, 'CAA', ['0 issue ";"'])
    const [verdict] = await caaVerdicts(resolverUrl, HOST, 'letsencrypt')
    expect(verdict).toMatchObject({
      kind: 'caa-forbids',
      name: HOST,
      add: { value: '0 issue "letsencrypt.org"' },
    })
    expect(verdict?.detail).toBe(
      `The CAA records at ${HOST} let no CA issue certificates for ${HOST}, so Let's Encrypt (letsencrypt.org), the CA the node uses, refuses to. Add the CAA record ${HOST} CAA 0 issue "letsencrypt.org" beside them.`,
    )
  })

  it("should judge a node on pebble by pebble's own CAA identity", async () => {
    doh.set('example.com', 'CAA', ['0 issue "letsencrypt.org"'])
    const [verdict] = await caaVerdicts(resolverUrl, HOST, 'pebble')
    expect(verdict).toMatchObject({
      kind: 'caa-forbids',
      add: { type: 'CAA', name: 'example.com', value: '0 issue "pebble.letsencrypt.org"' },
    })
    doh.set('example.com', 'CAA', ['0 issue "pebble.letsencrypt.org"'])
    expect(await caaVerdicts(resolverUrl, HOST, 'pebble')).toEqual([])
  })

  it("should name the alias's target as where to add when the set came through a CNAME", async () => {
    doh.set(HOST, 'CNAME', ['shops.saas.example.net.'])
    doh.set('shops.saas.example.net', 'CNAME', ['edge.saas.example.net.'])
    doh.set(HOST, 'CAA', ['0 issue "sectigo.com"'])
    const [verdict] = await caaVerdicts(resolverUrl, HOST, 'letsencrypt')
    expect(verdict).toMatchObject({
      kind: 'caa-forbids',
      name: HOST,
      add: { type: 'CAA', name: 'edge.saas.example.net', value: '0 issue "letsencrypt.org"' },
    })
    expect(verdict?.detail).toBe(
      `The CAA records at ${HOST} (an alias of edge.saas.example.net, which holds them) let only sectigo.com issue certificates for ${HOST}, so Let's Encrypt (letsencrypt.org), the CA the node uses, refuses to. Add the CAA record edge.saas.example.net CAA 0 issue "letsencrypt.org" beside them.`,
    )
  })

  it('should say a CA will not issue while the CAA lookup fails for a reason other than DNSSEC', async () => {
    doh.set('shop.example.com', 'CAA', [], 2)
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([
      {
        kind: 'resolver-failed',
        type: 'CAA',
        name: 'shop.example.com',
        expected: null,
        observed: [],
        fixable: false,
        detail: `The CAA lookup for shop.example.com fails (SERVFAIL), and a CA does not issue while it cannot read the CAA records. The nameservers of shop.example.com must answer CAA queries (an empty answer is fine).`,
      },
    ])
  })

  it('should say the CAA records could not be read when the resolver does not answer', async () => {
    doh.httpStatus = 503
    const verdicts = await caaVerdicts(resolverUrl, HOST, 'letsencrypt')
    expect(verdicts).toMatchObject([{ kind: 'resolver-failed', type: 'CAA', name: HOST }])
    expect(verdicts[0]).not.toHaveProperty('add')
    expect(verdicts[0]?.detail).toBe(
      `The CAA records of ${HOST} could not be read (the DNS resolver https://cloudflare-dns.com answered HTTP 503), and a CA does not issue while it cannot read them.`,
    )
  })

  it('should leave a zone whose signatures do not validate to the DNSSEC verdict', async () => {
    doh.bogus('example.com')
    doh.set('example.com', 'CAA', ['0 issue "sectigo.com"'])
    expect(await caaVerdicts(resolverUrl, HOST, 'letsencrypt')).toEqual([])
  })
})

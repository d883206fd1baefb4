import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { attemptError, classifyProblem } from '../../node-agent/acme-problem.ts'
import { parseTlsLogLine, type TlsLogEvent } from '../../node-agent/caddy-tls-log.ts'
import { CertificateAttempts } from '../../node-agent/certificate-attempts.ts'

// What Caddy 2.6.2 (Debian's, certmagic 0.17.2) logged while obtaining on demand from Debian's pebble 2.4.0
// validating HTTP-01 against a PowerDNS zone (captured with the agent's logger selection, nothing edited):
// ok. and caa. (a CAA record allowing only letsencrypt.org, which pebble 2.4.0 never reads) were issued;
// missing. has no record; refused. points at 127.0.0.3 where nothing listens; wrong. at a server answering 404;
// timeout. at an unreachable 10.255.255.1. Each failing handshake waited the 180 s certmagic gives on demand.
const LINES = readFileSync(
  path.join(import.meta.dirname, 'fixtures/caddy-2.6.2-pebble-2.4.0-tls.jsonl'),
  'utf8',
).split('\n')

const events = (): TlsLogEvent[] => LINES.flatMap((line) => parseTlsLogLine(line) ?? [])

/** Every outcome the ledger queued, in order, reading the lines one at a time. */
function outcomesOf(list: readonly TlsLogEvent[], serves = (_: string) => true) {
  const ledger = new CertificateAttempts(serves)
  const seen = []
  for (const event of list) {
    ledger.take(event)
    seen.push(...ledger.drain(500))
  }
  return seen
}

const lastOf = (hostname: string) => outcomesOf(events()).findLast((o) => o.hostname === hostname)

describe("Caddy's tls log in the CA's words", () => {
  it('should read the lines of interest of a real run and nothing else', () => {
    const kinds = events().map((event) => event.type)
    expect(kinds.filter((kind) => kind === 'on_demand')).toHaveLength(6)
    expect(kinds.filter((kind) => kind === 'obtained')).toHaveLength(2)
    expect(kinds.filter((kind) => kind === 'failed')).toHaveLength(8)
    expect(parseTlsLogLine('not json')).toBeNull()
    expect(parseTlsLogLine('{"level":"info","ts":1,"logger":"tls.obtain","msg":"releasing lock"}')).toBeNull()
  })

  it('should name each failure by the problem the CA answered for HTTP-01, whichever challenge came first', () => {
    expect(lastOf('wrong.cap.test')?.error).toMatchObject({
      kind: 'unauthorized',
      problemType: 'urn:ietf:params:acme:error:unauthorized',
      detail: expect.stringMatching(/^Non-200 status code from HTTP: .* returned 404$/),
      retryAfter: null,
    })
    expect(lastOf('refused.cap.test')?.error).toMatchObject({
      kind: 'connection',
      problemType: 'urn:ietf:params:acme:error:connection',
      detail: expect.stringContaining('dial tcp 127.0.0.3:'),
    })
    expect(lastOf('refused.cap.test')?.error?.detail).toContain('connection refused')
    expect(lastOf('timeout.cap.test')?.error).toMatchObject({
      kind: 'connection',
      detail: expect.stringContaining('network is unreachable'),
    })
    // pebble says `connection` when the name does not resolve; the detail says why.
    expect(lastOf('missing.cap.test')?.error).toMatchObject({
      kind: 'dns',
      problemType: 'urn:ietf:params:acme:error:connection',
      detail: expect.stringContaining('could not resolve URL "http://missing.cap.test:'),
    })
  })

  it('should keep HTTP-01’s refusal when Caddy tried TLS-ALPN-01 first (it picks either order)', () => {
    const missing = events().filter((e) => e.hostname === 'missing.cap.test')
    const failedAt = missing.findIndex((e) => e.type === 'failed')
    const refusals = missing.slice(0, failedAt).filter((e) => e.type === 'challenge_failed')
    expect(refusals.map((e) => e.type === 'challenge_failed' && e.challengeType)).toEqual([
      'http-01',
      'tls-alpn-01',
    ])
    const others = missing.slice(0, failedAt).filter((e) => e.type !== 'challenge_failed')
    const reordered = [...others, ...refusals.reverse(), ...missing.slice(failedAt)]
    expect(outcomesOf(reordered)[0]?.error).toMatchObject({
      kind: 'dns',
      problemType: 'urn:ietf:params:acme:error:connection',
    })
  })

  it('should report a failure with no ACME problem in Caddy’s words, as other', () => {
    const first = outcomesOf(events()).find((o) => o.hostname === 'refused.cap.test')
    expect(first?.error).toEqual({
      kind: 'other',
      problemType: null,
      detail: 'getting ACME account: unexpected end of JSON input',
      retryAfter: null,
    })
  })

  it('should give the next attempt only while the on-demand obtain is still retrying (180 s)', () => {
    const missing = outcomesOf(events()).filter((o) => o.hostname === 'missing.cap.test')
    const failures = missing.filter((o) => o.nextAttemptAt !== null || o.outcome === 'failed')
    // First failure: "will retry" in 60 s, inside the window: the second attempt did start then.
    const first = failures.find((o) => o.nextAttemptAt !== null)
    const second = events().filter((e) => e.hostname === 'missing.cap.test' && e.type === 'attempt')[1]
    expect(first?.nextAttemptAt).toBe(new Date(Date.parse(first?.at ?? '') + 60_000).toISOString())
    expect(Math.abs(Date.parse(first?.nextAttemptAt ?? '') - (second?.at ?? 0))).toBeLessThan(1000)
    // Second failure: "will retry" in 120 s, past the window: Caddy stopped at 180 s (no third attempt).
    expect(missing.at(-1)).toMatchObject({ outcome: 'failed', nextAttemptAt: null })
    expect(events().filter((e) => e.hostname === 'missing.cap.test' && e.type === 'attempt')).toHaveLength(2)
  })

  it('should report an issued certificate as obtained, with no error', () => {
    expect(lastOf('ok.cap.test')).toMatchObject({ outcome: 'obtained', error: null, nextAttemptAt: null })
    // pebble 2.4.0 does not check CAA at all: the CA said nothing, so nothing is reported as caa.
    expect(lastOf('caa.cap.test')).toMatchObject({ outcome: 'obtained', error: null })
  })

  it('should keep only hostnames the agent serves, one newest outcome each', () => {
    const ledger = new CertificateAttempts((hostname) => hostname === 'wrong.cap.test')
    for (const event of events()) ledger.take(event)
    const batch = ledger.drain(500)
    expect(batch.map((o) => o.hostname)).toEqual(['wrong.cap.test'])
    expect(ledger.drain(500)).toEqual([])
  })

  it('should clear the failure once the same hostname is obtained', () => {
    const wrong = events().filter((e) => e.hostname === 'wrong.cap.test')
    const obtained = { type: 'obtained' as const, hostname: 'wrong.cap.test', at: Date.now() }
    const ledger = new CertificateAttempts(() => true)
    for (const event of [...wrong, obtained]) ledger.take(event)
    expect(ledger.drain(500)).toEqual([
      expect.objectContaining({ hostname: 'wrong.cap.test', outcome: 'obtained', error: null }),
    ])
  })
})

// RFC 8555 §6.7's problem types a CA other than pebble 2.4.0 answers (it has no CAA check and no rate limits):
// the classification of the type, and Let's Encrypt's rate limit detail, which says when the limit lifts.
describe('classifyProblem', () => {
  it('should name CAA, rate limit, DNS and unauthorized problems by their type', () => {
    expect(classifyProblem('urn:ietf:params:acme:error:caa', 'CAA record for x prevents issuance')).toBe(
      'caa',
    )
    expect(classifyProblem('urn:ietf:params:acme:error:dns', 'DNS problem: NXDOMAIN looking up A')).toBe(
      'dns',
    )
    expect(classifyProblem('urn:ietf:params:acme:error:incorrectResponse', 'wrong key')).toBe('unauthorized')
    expect(classifyProblem('urn:ietf:params:acme:error:malformed', 'bad CSR')).toBe('other')
  })

  it('should say when a rate limit lifts, from the detail, and nothing when it does not say', () => {
    const detail =
      'too many certificates (5) already issued for this exact set of identifiers in the last 168h0m0s, retry after 2031-01-02 03:04:05 UTC: see https://letsencrypt.org/docs/rate-limits/'
    expect(attemptError('urn:ietf:params:acme:error:rateLimited', detail)).toEqual({
      kind: 'rate_limited',
      problemType: 'urn:ietf:params:acme:error:rateLimited',
      detail,
      retryAfter: '2031-01-02T03:04:05.000Z',
    })
    expect(attemptError('urn:ietf:params:acme:error:rateLimited', 'too many requests').retryAfter).toBeNull()
  })
})

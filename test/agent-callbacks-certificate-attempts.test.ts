import { beforeEach, describe, expect, it } from 'vitest'
import { CERTIFICATE_ATTEMPTS_CALLBACK } from '../src/agent-contract/certificate-attempts'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { attachGreen, domainWorld, getDomain } from './domains/fixture'
import { FakeDoh } from './fakes/doh'
import { reportCertificateAttempts } from './helpers/agent-callback'
import { type Caller, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'

// A node reports what Caddy logged of each issuance attempt (contract v2, agent 0.5.0): the panel keeps the
// newest outcome per registration from the node that routes it, answers cert.lastError (in the CA's words),
// nextAttemptAt and, for a rate limit, when it lifts; a success clears the error.

interface CertAnswer {
  issued: boolean
  lastError?: { at: string; kind: string; detail: string; problemType?: string; retryAfter?: string }
  nextAttemptAt?: string
}

let admin: Caller
let site: SiteFixture

beforeEach(async () => {
  captureJobs()
  new FakeDoh().install()
  admin = await adminSession()
  site = await siteWithToken(admin)
})

async function cert(hostname: string): Promise<CertAnswer> {
  return (
    await ok<{ cert: CertAnswer }>('customHostnames.status', { siteId: site.siteId, hostname }, site.app)
  ).cert
}

// Caddy 2.6.2's words for wrong.cap.test against pebble 2.4.0 (test/node/fixtures), as the agent reports them.
const unauthorized = (hostname: string, at: string, nextAttemptAt: string | null = null) => ({
  hostname,
  at,
  outcome: 'failed',
  error: {
    kind: 'unauthorized',
    problemType: 'urn:ietf:params:acme:error:unauthorized',
    detail: `Non-200 status code from HTTP: http://${hostname}:47151/.well-known/acme-challenge/y6oYs8M4m2ghd8HDdxF9HgFk9x6sp3i2u1zxiatpNUI returned 404`,
    retryAfter: null,
  },
  nextAttemptAt,
})

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString()

describe('POST /api/agent/v2/certificate-attempts', () => {
  it('should answer the failure in the CA’s words with the next attempt, and clear it on success', async () => {
    const hostname = 'refused.attempts-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    expect(await cert(hostname)).toEqual({ issued: false })

    const failure = unauthorized(hostname, secondsAgo(30), new Date(Date.now() + 30_000).toISOString())
    const answer = await reportCertificateAttempts(site.nodeId, { attempts: [failure] })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ accepted: 1, ignored: 0 })
    expect(await cert(hostname)).toEqual({
      issued: false,
      lastError: {
        at: failure.at,
        kind: 'unauthorized',
        problemType: failure.error.problemType,
        detail: failure.error.detail,
      },
      nextAttemptAt: failure.nextAttemptAt,
    })

    // Delivered again (a lost answer): the same outcome, nothing else changes.
    expect((await reportCertificateAttempts(site.nodeId, { attempts: [failure] })).body).toEqual({
      accepted: 1,
      ignored: 0,
    })
    expect((await cert(hostname)).lastError?.at).toBe(failure.at)

    const obtained = { hostname, at: secondsAgo(5), outcome: 'obtained', error: null, nextAttemptAt: null }
    expect((await reportCertificateAttempts(site.nodeId, { attempts: [obtained] })).status).toBe(200)
    expect(await cert(hostname)).toEqual({ issued: false })
    // The older failure, arriving late, does not bring the error back.
    expect((await reportCertificateAttempts(site.nodeId, { attempts: [failure] })).status).toBe(200)
    expect(await cert(hostname)).toEqual({ issued: false })
  })

  it('should say when a rate limit lifts', async () => {
    const hostname = 'limited.attempts-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const retryAfter = new Date(Date.now() + 3 * 3_600_000).toISOString()
    const detail = `too many certificates (5) already issued for this exact set of identifiers in the last 168h0m0s, retry after ${retryAfter.slice(0, 10)} ${retryAfter.slice(11, 19)} UTC: see https://letsencrypt.org/docs/rate-limits/`
    const limited = {
      hostname,
      at: secondsAgo(1),
      outcome: 'failed',
      error: {
        kind: 'rate_limited',
        problemType: 'urn:ietf:params:acme:error:rateLimited',
        detail,
        retryAfter,
      },
      nextAttemptAt: null,
    }
    expect((await reportCertificateAttempts(site.nodeId, { attempts: [limited] })).status).toBe(200)
    expect((await cert(hostname)).lastError).toMatchObject({ kind: 'rate_limited', retryAfter, detail })
  })

  it('should ignore what another node reports for a hostname it does not route', async () => {
    const hostname = 'theirs.attempts-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const other = await siteWithToken(admin)
    const answer = await reportCertificateAttempts(other.nodeId, {
      attempts: [unauthorized(hostname, secondsAgo(1))],
    })
    expect(answer.body).toEqual({ accepted: 0, ignored: 1 })
    expect(await cert(hostname)).toEqual({ issued: false })
  })

  it('should refuse an unsigned or wrongly signed report', async () => {
    const hostname = 'unsigned.attempts-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const body = { attempts: [unauthorized(hostname, secondsAgo(1))] }
    const wrong = await reportCertificateAttempts(site.nodeId, body, 'not-the-agent-secret-000')
    expect(wrong.status).toBe(401)
    const unsigned = await send(CERTIFICATE_ATTEMPTS_CALLBACK, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-node-id': site.nodeId },
      body: JSON.stringify(body),
    })
    expect(unsigned.status).toBe(401)
    expect(await cert(hostname)).toEqual({ issued: false })
  })

  it('should refuse bad input with a problem naming the field, keeping nothing', async () => {
    const hostname = 'bad.attempts-customer.com'
    await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app)
    const good = unauthorized(hostname, secondsAgo(1))
    const noError = { ...good, error: null }
    const answer = await reportCertificateAttempts(site.nodeId, { attempts: [good, noError] })
    expect(answer.status).toBe(400)
    expect(answer.headers.get('content-type')).toContain('application/problem+json')
    expect(answer.text).toContain('attempts.1.error')
    const kind = await reportCertificateAttempts(site.nodeId, {
      attempts: [{ ...good, error: { ...good.error, kind: 'weather' } }],
    })
    expect(kind.status).toBe(400)
    expect(kind.text).toContain('attempts.0.error.kind')
    expect(await cert(hostname)).toEqual({ issued: false })
  })

  it('should answer the same on domains.get for a domain the node routes', async () => {
    const world = await domainWorld()
    const hostname = `failing.${crypto.randomUUID().slice(0, 8)}-shop.com`
    const domainId = await attachGreen(world, hostname)
    const failure = unauthorized(hostname, secondsAgo(2), new Date(Date.now() + 60_000).toISOString())
    const answer = await reportCertificateAttempts(world.site.nodeId, { attempts: [failure] })
    expect(answer.body).toEqual({ accepted: 1, ignored: 0 })
    const domain = await getDomain(domainId, world.admin)
    expect((domain as unknown as { cert: CertAnswer }).cert).toEqual({
      lastError: {
        at: failure.at,
        kind: 'unauthorized',
        problemType: failure.error.problemType,
        detail: failure.error.detail,
      },
      nextAttemptAt: failure.nextAttemptAt,
    })
  })
})

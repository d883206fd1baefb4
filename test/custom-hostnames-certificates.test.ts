import { beforeEach, describe, expect, it } from 'vitest'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { FakeDoh } from './fakes/doh'
import { reportCertificates } from './helpers/agent-callback'
import { type Caller, ok } from './helpers/http'
import { adminSession } from './helpers/principals'

// cert.issued speaks for one registration on the node that serves it: what another node, or the same name's
// earlier registration, reported never counts, and a node's clock cannot hold the answer.

interface Cert {
  issued: boolean
  notAfter?: string
  observedAt?: string
}

let admin: Caller
let siteA: SiteFixture
let siteB: SiteFixture

beforeEach(async () => {
  captureJobs()
  new FakeDoh().install()
  admin = await adminSession()
  siteA = await siteWithToken(admin)
  siteB = await siteWithToken(admin)
})

async function report(
  nodeId: string,
  observation: { hostname: string; notAfter: string; observedAt: string },
) {
  const answer = await reportCertificates(nodeId, {
    observations: [{ serial: crypto.randomUUID().slice(0, 8), issuer: 'pebble', ...observation }],
  })
  expect(answer.status, answer.text).toBe(200)
  return answer.body as { accepted: number; ignored: number }
}

async function cert(site: SiteFixture, hostname: string): Promise<Cert> {
  const status = await ok<{ cert: Cert }>(
    'customHostnames.status',
    { siteId: site.siteId, hostname },
    site.app,
  )
  return status.cert
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

describe('cert.issued after the hostname moved to another site and node', () => {
  it('should stay false until the new node reports, ignoring the old node', async () => {
    const hostname = 'moved.cert-customer.com'
    await ok('customHostnames.register', { siteId: siteA.siteId, hostname }, siteA.app)
    const first = { hostname, notAfter: inDays(80), observedAt: new Date().toISOString() }
    expect(await report(siteA.nodeId, first)).toEqual({ accepted: 1, ignored: 0 })
    expect(await cert(siteA, hostname)).toMatchObject({ issued: true, notAfter: first.notAfter })
    expect(await ok('customHostnames.remove', { siteId: siteA.siteId, hostname }, siteA.app)).toEqual({
      state: 'removed',
    })

    await ok('customHostnames.register', { siteId: siteB.siteId, hostname }, siteB.app)
    expect(await cert(siteB, hostname)).toEqual({ issued: false })
    const stale = { hostname, notAfter: inDays(85), observedAt: new Date().toISOString() }
    expect(await report(siteA.nodeId, stale)).toEqual({ accepted: 0, ignored: 1 })
    expect(await cert(siteB, hostname)).toEqual({ issued: false })

    const mine = { hostname, notAfter: inDays(90), observedAt: new Date().toISOString() }
    expect(await report(siteB.nodeId, mine)).toEqual({ accepted: 1, ignored: 0 })
    expect(await cert(siteB, hostname)).toEqual({
      issued: true,
      notAfter: mine.notAfter,
      observedAt: mine.observedAt,
    })
  })

  it('should not let an observedAt in the future hold the status against a later genuine report', async () => {
    const hostname = 'pinned.cert-customer.com'
    await ok('customHostnames.register', { siteId: siteB.siteId, hostname }, siteB.app)
    const future = { hostname, notAfter: '2099-01-01T00:00:00.000Z', observedAt: '2099-01-01T00:00:00.000Z' }
    expect(await report(siteB.nodeId, future)).toEqual({ accepted: 1, ignored: 0 })
    const pinned = await cert(siteB, hostname)
    expect(pinned.notAfter).toBe(future.notAfter)
    expect(Date.parse(pinned.observedAt ?? '')).toBeLessThanOrEqual(Date.now())

    const genuine = { hostname, notAfter: inDays(90), observedAt: new Date().toISOString() }
    expect(await report(siteB.nodeId, genuine)).toEqual({ accepted: 1, ignored: 0 })
    expect(await cert(siteB, hostname)).toEqual({
      issued: true,
      notAfter: genuine.notAfter,
      observedAt: genuine.observedAt,
    })
  })
})

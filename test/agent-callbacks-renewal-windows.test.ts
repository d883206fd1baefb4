import { beforeEach, describe, expect, it } from 'vitest'
import { RENEWAL_WINDOWS_CALLBACK } from '../src/agent-contract/renewal-windows'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { captureJobs } from './dns-servers/run-job'
import { attachGreen, domainWorld, getDomain, reportCertificates } from './domains/fixture'
import { FakeDoh } from './fakes/doh'
import { callbackHeaders, reportRenewalWindows } from './helpers/agent-callback'
import { type Caller, ok, send } from './helpers/http'
import { adminSession } from './helpers/principals'

// A node reports the CA's suggested renewal window (ACME ARI, agent 0.5.1) of each certificate it serves: the
// panel keeps it with that certificate's observation and answers cert.renewalWindow while that certificate is
// the one served; a new certificate starts without one.

interface CertAnswer {
  issued: boolean
  notAfter?: string
  renewalWindow?: { start: string; end: string; explanationUrl?: string }
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

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()
const window = { start: inDays(59), end: inDays(61) }

async function servedAt(hostname: string, serial: string, nodeId = site.nodeId) {
  await ok('customHostnames.register', { siteId: site.siteId, hostname }, site.app).catch(() => undefined)
  return reportCertificates(nodeId, [{ hostname, serial, notAfter: inDays(90) }])
}

describe('POST /api/agent/v2/renewal-windows', () => {
  it('should answer the window of the certificate served, in status and list', async () => {
    const hostname = 'windowed.ari-customer.com'
    expect(await servedAt(hostname, '0A1B2C')).toEqual({ accepted: 1, ignored: 0 })
    expect((await cert(hostname)).renewalWindow).toBeUndefined()
    const explanationUrl = 'https://letsencrypt.org/docs/ari'
    const answer = await reportRenewalWindows(site.nodeId, {
      windows: [{ hostname, serial: '0A1B2C', ...window, explanationUrl }],
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ accepted: 1, ignored: 0 })
    expect(await cert(hostname)).toMatchObject({ issued: true, renewalWindow: { ...window, explanationUrl } })
    const { hostnames } = await ok<{ hostnames: { hostname: string; cert: CertAnswer }[] }>(
      'customHostnames.list',
      { siteId: site.siteId },
      site.app,
    )
    expect(hostnames.find((row) => row.hostname === hostname)?.cert.renewalWindow).toEqual({
      ...window,
      explanationUrl,
    })

    // Delivered again (a lost answer): the same window. Moved by the CA: the new one.
    expect(
      (await reportRenewalWindows(site.nodeId, { windows: [{ hostname, serial: '0A1B2C', ...window }] }))
        .body,
    ).toEqual({ accepted: 1, ignored: 0 })
    const moved = { start: inDays(1), end: inDays(2) }
    await reportRenewalWindows(site.nodeId, { windows: [{ hostname, serial: '0A1B2C', ...moved }] })
    expect((await cert(hostname)).renewalWindow).toEqual(moved)
  })

  it('should drop the window when a new certificate is served, and ignore a late one for the old serial', async () => {
    const hostname = 'renewed.ari-customer.com'
    await servedAt(hostname, '01')
    await reportRenewalWindows(site.nodeId, { windows: [{ hostname, serial: '01', ...window }] })
    expect((await cert(hostname)).renewalWindow).toEqual(window)

    // The same certificate observed again keeps its window.
    await servedAt(hostname, '01')
    expect((await cert(hostname)).renewalWindow).toEqual(window)

    await servedAt(hostname, '02')
    expect(await cert(hostname)).toEqual({
      issued: true,
      notAfter: expect.any(String),
      observedAt: expect.any(String),
    })
    const late = await reportRenewalWindows(site.nodeId, { windows: [{ hostname, serial: '01', ...window }] })
    expect(late.body).toEqual({ accepted: 0, ignored: 1 })
    expect((await cert(hostname)).renewalWindow).toBeUndefined()
    const next = { start: inDays(60), end: inDays(62) }
    await reportRenewalWindows(site.nodeId, { windows: [{ hostname, serial: '02', ...next }] })
    expect((await cert(hostname)).renewalWindow).toEqual(next)
  })

  it('should ignore what another node reports for a hostname it does not route', async () => {
    const hostname = 'theirs.ari-customer.com'
    await servedAt(hostname, '0F')
    const other = await siteWithToken(admin)
    const answer = await reportRenewalWindows(other.nodeId, {
      windows: [{ hostname, serial: '0F', ...window }],
    })
    expect(answer.body).toEqual({ accepted: 0, ignored: 1 })
    expect((await cert(hostname)).renewalWindow).toBeUndefined()
  })

  it('should refuse an unsigned or wrongly signed report', async () => {
    const hostname = 'unsigned.ari-customer.com'
    await servedAt(hostname, '10')
    const body = { windows: [{ hostname, serial: '10', ...window }] }
    expect((await reportRenewalWindows(site.nodeId, body, 'not-the-agent-secret-000')).status).toBe(401)
    const unsigned = await send(RENEWAL_WINDOWS_CALLBACK, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-node-id': site.nodeId },
      body: JSON.stringify(body),
    })
    expect(unsigned.status).toBe(401)
    expect((await cert(hostname)).renewalWindow).toBeUndefined()
  })

  it('should refuse bad input with a problem naming the field, keeping nothing', async () => {
    const hostname = 'bad.ari-customer.com'
    await servedAt(hostname, '11')
    const good = { hostname, serial: '11', ...window }
    const backwards = await reportRenewalWindows(site.nodeId, {
      windows: [good, { ...good, start: window.end, end: window.start }],
    })
    expect(backwards.status).toBe(400)
    expect(backwards.headers.get('content-type')).toContain('application/problem+json')
    expect(backwards.text).toContain('windows.1.end')
    const extra = await reportRenewalWindows(site.nodeId, { windows: [{ ...good, suggested: true }] })
    expect(extra.status).toBe(400)
    expect(extra.text).toContain('windows.0')
    const url = await reportRenewalWindows(site.nodeId, {
      windows: [{ ...good, explanationUrl: 'javascript:alert(1)' }],
    })
    expect(url.status).toBe(400)
    expect(url.text).toContain('windows.0.explanationUrl')
    const json = await send(RENEWAL_WINDOWS_CALLBACK, {
      method: 'POST',
      headers: await callbackHeaders(site.nodeId, {
        method: 'POST',
        path: RENEWAL_WINDOWS_CALLBACK,
        body: '{',
      }),
      body: '{',
    })
    expect(json.status).toBe(400)
    expect((await cert(hostname)).renewalWindow).toBeUndefined()
  })

  it('should answer the window on domains.get for a domain the node routes', async () => {
    const world = await domainWorld()
    const hostname = `ari.${crypto.randomUUID().slice(0, 8)}-shop.com`
    const domainId = await attachGreen(world, hostname)
    await reportCertificates(world.site.nodeId, [{ hostname, serial: 'D0', notAfter: inDays(95) }])
    const answer = await reportRenewalWindows(world.site.nodeId, {
      windows: [{ hostname, serial: 'D0', ...window }],
    })
    expect(answer.body).toEqual({ accepted: 1, ignored: 0 })
    const domain = (await getDomain(domainId, world.admin)) as unknown as { cert: CertAnswer }
    expect(domain.cert).toEqual({ renewalWindow: window })
  })
})

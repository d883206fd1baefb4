import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ariCertId } from '../../node-agent/ari-cert-id.ts'
import { PanelRefusal } from '../../node-agent/panel-report.ts'
import { RenewalInfoClient } from '../../node-agent/renewal-info.ts'
import { RenewalWindows, type ServedCertificate } from '../../node-agent/renewal-windows.ts'
import type { RenewalWindow } from '../../src/agent-contract/renewal-windows.ts'

// The agent asks the CA's ACME Renewal Information (RFC 9773) for the window in which it suggests renewing each
// certificate the node serves: here against a small ACME stand-in on 127.0.0.1 (a directory and a renewalInfo
// resource) and real certificates openssl makes for the test, with a real Authority Key Identifier.

// RFC 9773 Appendix A, whose certID §4.1 works out: AKI keyIdentifier 69:88:5B:…:C8:D4, serial 00:87:65:43:21.
const RFC_9773_EXAMPLE = `-----BEGIN CERTIFICATE-----
MIIBQzCB66ADAgECAgUAh2VDITAKBggqhkjOPQQDAjAVMRMwEQYDVQQDEwpFeGFt
cGxlIENBMCIYDzAwMDEwMTAxMDAwMDAwWhgPMDAwMTAxMDEwMDAwMDBaMBYxFDAS
BgNVBAMTC2V4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEeBZu
7cbpAYNXZLbbh8rNIzuOoqOOtmxA1v7cRm//AwyMwWxyHz4zfwmBhcSrf47NUAFf
qzLQ2PPQxdTXREYEnKMjMCEwHwYDVR0jBBgwFoAUaYhba4dGQEHhs3uEe6CuLN4B
yNQwCgYIKoZIzj0EAwIDRwAwRAIge09+S5TZAlw5tgtiVvuERV6cT4mfutXIlwTb
+FYN/8oCIClDsqBklhB9KAelFiYt9+6FDj3z4KGVelYM5MdsO3pK
-----END CERTIFICATE-----
`

let dir: string
let caKeyIdentifier: string
const leaves = new Map<number, string>()

function openssl(...args: string[]): string {
  return execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/** A leaf for `hostname` with the serial, signed by the test CA (whose key identifier its AKI carries). */
async function leaf(serial: number, hostname = `shop-${serial}.example.test`): Promise<string> {
  const file = path.join(dir, `leaf-${serial}.pem`)
  if (!leaves.has(serial)) {
    await writeFile(
      path.join(dir, 'leaf.ext'),
      `subjectAltName=DNS:${hostname}\nauthorityKeyIdentifier=keyid:always\n`,
    )
    openssl(
      ...['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-days', '90'],
      ...['-set_serial', `0x${serial.toString(16)}`, '-extfile', 'leaf.ext', '-out', file],
    )
    leaves.set(serial, file)
  }
  return file
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-ari-'))
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key')
  openssl(
    ...['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=ARI test CA', '-days', '365'],
    ...['-addext', 'subjectKeyIdentifier=hash', '-out', 'ca.pem'],
  )
  const ski = openssl('x509', '-in', 'ca.pem', '-noout', '-ext', 'subjectKeyIdentifier')
  caKeyIdentifier = Buffer.from(ski.split('\n')[1]?.trim().replaceAll(':', '') ?? '', 'hex').toString(
    'base64url',
  )
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.key')
  openssl('req', '-new', '-key', 'leaf.key', '-subj', '/CN=leaf', '-out', 'leaf.csr')
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The ACME stand-in: what its directory and renewalInfo resource answer, and every request it got. */
interface FakeCa {
  server: Server
  directoryUrl: string
  publishesRenewalInfo: boolean
  /** certID → [status, headers, body]; unknown certIDs are 404. */
  answers: Map<string, [number, Record<string, string>, unknown]>
  /** Every status the renewalInfo resource answers instead, while set (a CA in trouble). */
  down: number | null
  requests: string[]
  inFlight: number
  mostInFlight: number
  delayMs: number
}

let ca: FakeCa

beforeEach(async () => {
  const fake: FakeCa = {
    server: createServer((request, response) => {
      const url = request.url ?? ''
      fake.requests.push(url)
      const base = `http://127.0.0.1:${(fake.server.address() as { port: number }).port}`
      if (url === '/dir') {
        return response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            newNonce: `${base}/nonce`,
            newOrder: `${base}/order`,
            ...(fake.publishesRenewalInfo ? { renewalInfo: `${base}/renewal-info` } : {}),
          }),
        )
      }
      fake.inFlight++
      fake.mostInFlight = Math.max(fake.mostInFlight, fake.inFlight)
      setTimeout(() => {
        fake.inFlight--
        const certId = url.replace(/^\/renewal-info\//, '')
        if (fake.down !== null) return response.writeHead(fake.down).end('down')
        const [status, headers, body] = fake.answers.get(certId) ?? [404, {}, { type: 'notFound' }]
        response
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(body))
      }, fake.delayMs)
    }),
    directoryUrl: '',
    publishesRenewalInfo: true,
    answers: new Map(),
    down: null,
    requests: [],
    inFlight: 0,
    mostInFlight: 0,
    delayMs: 0,
  }
  await new Promise<void>((resolve) => fake.server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  fake.directoryUrl = `http://127.0.0.1:${(fake.server.address() as { port: number }).port}/dir`
  ca = fake
  return () => new Promise<void>((resolve) => fake.server.close(() => resolve()))
})

const HOUR = 3_600_000
const T0 = Date.parse('2026-12-01T00:00:00Z')

/** The agent's side: a clock the test moves, and every report it made to the panel. */
function agentSide(panel: (windows: readonly RenewalWindow[]) => Promise<void> = async () => {}) {
  const clock = { now: T0 }
  const reports: RenewalWindow[][] = []
  const now = () => clock.now
  const windows = new RenewalWindows({
    ask: new RenewalInfoClient(now).ask,
    report: async (batch) => {
      await panel(batch)
      reports.push([...batch])
    },
    now,
  })
  return { clock, reports, windows }
}

async function served(serial: number, hostname = `shop-${serial}.example.test`): Promise<ServedCertificate> {
  const file = await leaf(serial, hostname)
  const { serialNumber } = new X509Certificate(await readFile(file))
  return { hostname, serial: serialNumber, file, directory: { url: ca.directoryUrl, ca: null } }
}

/** The certID of a test leaf whose serial's DER content bytes are `serialHex`. */
const certIdOf = (serialHex: string) =>
  `${caKeyIdentifier}.${Buffer.from(serialHex, 'hex').toString('base64url')}`

const window = { start: '2027-01-20T00:00:00Z', end: '2027-01-22T00:00:00Z' }
const renewalInfoRequests = () => ca.requests.filter((url) => url.startsWith('/renewal-info/'))

describe('the ARI certID (RFC 9773 §4.1)', () => {
  it('should match the RFC’s worked example', () => {
    expect(ariCertId(new X509Certificate(RFC_9773_EXAMPLE))).toBe('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE')
  })

  it('should take the AKI keyIdentifier and the serial’s DER bytes, a leading zero kept', async () => {
    const high = new X509Certificate(await readFile(await leaf(0x87654321)))
    expect(ariCertId(high)).toBe(`${caKeyIdentifier}.AIdlQyE`)
    const low = new X509Certificate(await readFile(await leaf(0x1234)))
    expect(ariCertId(low)).toBe(`${caKeyIdentifier}.EjQ`)
  })

  it('should be null for a certificate without an Authority Key Identifier', () => {
    openssl(
      ...['req', '-x509', '-new', '-key', 'leaf.key', '-subj', '/CN=bare', '-days', '1'],
      ...['-addext', 'authorityKeyIdentifier=none', '-addext', 'subjectKeyIdentifier=none'],
      ...['-out', 'bare.pem'],
    )
    expect(ariCertId(new X509Certificate(openssl('x509', '-in', 'bare.pem')))).toBeNull()
  })
})

describe('renewal windows from the CA', () => {
  it('should read the suggested window and report it once, with the CA’s explanation', async () => {
    const shop = await served(0x87654321)
    const explanationURL = 'https://ca.example.test/docs/ari'
    ca.answers.set(certIdOf('0087654321'), [
      200,
      { 'retry-after': '21600' },
      { suggestedWindow: window, explanationURL },
    ])
    const agent = agentSide()
    await agent.windows.update([shop])
    expect(agent.reports).toEqual([
      [{ hostname: shop.hostname, serial: shop.serial, ...window, explanationUrl: explanationURL }],
    ])
    expect(renewalInfoRequests()).toEqual([`/renewal-info/${certIdOf('0087654321')}`])
    // The next scan, within Retry-After: no request, and nothing to report again.
    agent.clock.now += HOUR
    await agent.windows.update([shop])
    expect(renewalInfoRequests()).toHaveLength(1)
    expect(agent.reports).toHaveLength(1)
  })

  it('should not ask again before Retry-After, then report a window the CA moved', async () => {
    const shop = await served(0x2001)
    const certId = certIdOf('2001')
    ca.answers.set(certId, [200, { 'retry-after': '7200' }, { suggestedWindow: window }])
    const agent = agentSide()
    await agent.windows.update([shop])
    const moved = { start: '2026-12-01T02:00:00Z', end: '2026-12-01T08:00:00Z' }
    ca.answers.set(certId, [
      200,
      { 'retry-after': new Date(T0 + 5 * HOUR).toUTCString() },
      { suggestedWindow: moved },
    ])
    agent.clock.now = T0 + 2 * HOUR - 1_000
    await agent.windows.update([shop])
    expect(renewalInfoRequests()).toHaveLength(1)
    agent.clock.now = T0 + 2 * HOUR
    await agent.windows.update([shop])
    expect(agent.reports.at(-1)).toEqual([{ hostname: shop.hostname, serial: shop.serial, ...moved }])
    // An HTTP-date Retry-After counts too.
    agent.clock.now = T0 + 5 * HOUR - 1_000
    await agent.windows.update([shop])
    expect(renewalInfoRequests()).toHaveLength(2)
    agent.clock.now = T0 + 5 * HOUR
    await agent.windows.update([shop])
    expect(renewalInfoRequests()).toHaveLength(3)
  })

  it('should treat a Retry-After under a minute as a minute, and none as six hours', async () => {
    const eager = await served(0x2101)
    const silent = await served(0x2102)
    ca.answers.set(certIdOf('2101'), [200, { 'retry-after': '1' }, { suggestedWindow: window }])
    ca.answers.set(certIdOf('2102'), [200, {}, { suggestedWindow: window }])
    const agent = agentSide()
    await agent.windows.update([eager, silent])
    agent.clock.now += 59_000
    await agent.windows.update([eager, silent])
    expect(renewalInfoRequests()).toHaveLength(2)
    agent.clock.now = T0 + 60_000
    await agent.windows.update([eager, silent])
    expect(renewalInfoRequests()).toEqual([
      expect.any(String),
      expect.any(String),
      `/renewal-info/${certIdOf('2101')}`,
    ])
    agent.clock.now = T0 + 6 * HOUR
    await agent.windows.update([silent])
    expect(renewalInfoRequests().at(-1)).toBe(`/renewal-info/${certIdOf('2102')}`)
  })

  it('should report nothing when the directory has no renewalInfo, never inventing a window', async () => {
    ca.publishesRenewalInfo = false
    const shop = await served(0x2201)
    const agent = agentSide()
    await agent.windows.update([shop])
    expect(agent.reports).toEqual([])
    expect(renewalInfoRequests()).toEqual([])
    // A CA answering a window with its end before its start published none (RFC 9773 §4.2).
    ca.publishesRenewalInfo = true
    ca.answers.set(certIdOf('2202'), [200, {}, { suggestedWindow: { start: window.end, end: window.start } }])
    await agent.windows.update([await served(0x2202)])
    expect(agent.reports).toEqual([])
  })

  it('should report nothing while the CA is down, and ask again later', async () => {
    const shop = await served(0x2301)
    ca.answers.set(certIdOf('2301'), [200, { 'retry-after': '21600' }, { suggestedWindow: window }])
    ca.down = 503
    const agent = agentSide()
    await agent.windows.update([shop])
    expect(agent.reports).toEqual([])
    expect(renewalInfoRequests()).toHaveLength(1)
    ca.down = null
    // Backing off: not at the very next scan…
    agent.clock.now += 60_000
    await agent.windows.update([shop])
    expect(renewalInfoRequests()).toHaveLength(1)
    // …but within the hour.
    agent.clock.now = T0 + HOUR
    await agent.windows.update([shop])
    expect(agent.reports).toEqual([[{ hostname: shop.hostname, serial: shop.serial, ...window }]])
  })

  it('should report nothing when the CA cannot be reached at all, and reach it later', async () => {
    const shop = await served(0x2401)
    ca.answers.set(certIdOf('2401'), [200, { 'retry-after': '21600' }, { suggestedWindow: window }])
    const reachable = shop.directory
    const unreachable = { ...shop, directory: { url: 'http://127.0.0.1:1/dir', ca: null } }
    const agent = agentSide()
    await agent.windows.update([unreachable])
    expect(agent.reports).toEqual([])
    agent.clock.now = T0 + HOUR
    await agent.windows.update([{ ...shop, directory: reachable }])
    expect(agent.reports).toEqual([[{ hostname: shop.hostname, serial: shop.serial, ...window }]])
  })

  it('should forget the window of a replaced certificate and ask about the new one', async () => {
    const old = await served(0x2501, 'renewed.example.test')
    const renewed = await served(0x2502, 'renewed.example.test')
    const next = { start: '2027-03-01T00:00:00Z', end: '2027-03-03T00:00:00Z' }
    ca.answers.set(certIdOf('2501'), [200, { 'retry-after': '21600' }, { suggestedWindow: window }])
    ca.answers.set(certIdOf('2502'), [200, { 'retry-after': '21600' }, { suggestedWindow: next }])
    const agent = agentSide()
    await agent.windows.update([old])
    agent.clock.now += HOUR
    await agent.windows.update([renewed])
    expect(agent.reports).toEqual([
      [{ hostname: 'renewed.example.test', serial: old.serial, ...window }],
      [{ hostname: 'renewed.example.test', serial: renewed.serial, ...next }],
    ])
  })

  it('should stop asking about an expired certificate', async () => {
    const shop = await served(0x2601)
    ca.answers.set(certIdOf('2601'), [200, { 'retry-after': '60' }, { suggestedWindow: window }])
    const agent = agentSide()
    agent.clock.now = Date.now() + 91 * 24 * HOUR
    await agent.windows.update([shop])
    expect(renewalInfoRequests()).toEqual([])
  })

  it('should ask at most four at once', async () => {
    ca.delayMs = 30
    const many = await Promise.all(Array.from({ length: 12 }, (_, i) => served(0x2700 + i)))
    for (const one of many)
      ca.answers.set(certIdOf(Number(`0x${one.serial}`).toString(16)), [200, {}, { suggestedWindow: window }])
    const agent = agentSide()
    await agent.windows.update(many)
    expect(renewalInfoRequests()).toHaveLength(12)
    expect(ca.mostInFlight).toBeLessThanOrEqual(4)
    expect(ca.requests.filter((url) => url === '/dir')).toHaveLength(1)
    expect(agent.reports.flat()).toHaveLength(12)
  })

  it('should not ask twice when a scan starts while the one before is still asking', async () => {
    ca.delayMs = 50
    const shop = await served(0x2901)
    ca.answers.set(certIdOf('2901'), [200, { 'retry-after': '21600' }, { suggestedWindow: window }])
    const agent = agentSide()
    await Promise.all([agent.windows.update([shop]), agent.windows.update([shop])])
    expect(renewalInfoRequests()).toHaveLength(1)
    expect(agent.reports).toHaveLength(1)
  })

  it('should keep a window a panel before the callback refused, and report it once the panel takes it', async () => {
    const shop = await served(0x2801)
    ca.answers.set(certIdOf('2801'), [200, { 'retry-after': '21600' }, { suggestedWindow: window }])
    let panelKnowsWindows = false
    const agent = agentSide(async () => {
      if (!panelKnowsWindows) throw new PanelRefusal('POST', '/api/agent/v2/renewal-windows', 404)
    })
    await agent.windows.update([shop])
    expect(agent.reports).toEqual([])
    panelKnowsWindows = true
    agent.clock.now += HOUR
    await agent.windows.update([shop])
    expect(agent.reports).toEqual([[{ hostname: shop.hostname, serial: shop.serial, ...window }]])
    expect(renewalInfoRequests()).toHaveLength(1)
  })
})

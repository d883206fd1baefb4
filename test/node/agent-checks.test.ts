import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createTcpServer, isIP, type Server } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import path from 'node:path'
import { createServer as createTlsServer, type SecureVersion } from 'node:tls'
import { decode } from '@dnsquery/dns-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { destinationRule, type Vet } from '../../node-agent/checks/destination.ts'
import { runNodeCheck } from '../../node-agent/checks/run.ts'
import type { NodeCheck } from '../../src/agent-contract/checks.ts'
import type { DnsLookupType } from '../../src/outside/doh.ts'
import { dohAnswer } from '../fakes/doh-wire.ts'
import { type Blackhole, startBlackhole } from '../probes/servers/blackhole.ts'
import { makeCertificate } from '../probes/servers/certificates.ts'

// The agent's check runners, each against a real local counterpart on 127.0.0.1: an HTTP site, TCP ports that
// accept, refuse or never answer, TLS servers (a TLS 1.3-only one among them) and a DNS server on UDP. The node's
// destination rule refuses loopback, so the mechanics are tested with a vetting function that sends any name to
// 127.0.0.1 (which also shows the connection goes to the vetted address, the name kept as Host and SNI); the rule
// itself is tested with the real one, its refusals against the same servers.

const DAY = 86_400_000
const servers: { close(): unknown }[] = []
let root: string
let site: number
let refused: number
let blackhole: Blackhole
let dnsServer: string
const tls: Record<'valid' | 'tls13Only' | 'nearExpiry' | 'expired', number> = {
  valid: 0,
  tls13Only: 0,
  nearExpiry: 0,
  expired: 0,
}
let validUntil: Date
/** What reached the HTTP site: each request, and each TCP connection; and the SNI each TLS server was sent. */
const siteSaw: { method: string; url: string; host: string }[] = []
let siteConnections = 0
const serverNames: string[] = []

function listen(server: Server | HttpServer): Promise<number> {
  servers.push(server)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    })
  })
}

/** The zone the test DNS server answers: name → type → records; a name absent is NXDOMAIN. */
const ZONE: Record<string, Partial<Record<DnsLookupType, string[]>>> = {
  'db.internal.test': { A: ['10.1.2.3'], AAAA: ['2001:db8:0:0::5'] },
  'mail.internal.test': { MX: ['10 mx1.internal.test.'], TXT: ['"v=spf1 " "-all"'] },
  'empty.internal.test': {},
}

async function startDns(): Promise<string> {
  const socket: UdpSocket = createSocket('udp4')
  socket.on('message', (message, peer) => {
    const query = decode(message)
    const question = query.questions?.[0]
    if (!question) return
    const name = question.name.replace(/\.$/, '')
    const records = ZONE[name]
    const type = question.type as DnsLookupType
    void dohAnswer(name, type, records ? 0 : 3, records?.[type] ?? [])
      .arrayBuffer()
      .then((body) => {
        const answer = Buffer.from(body)
        answer.writeUInt16BE(query.id ?? 0, 0)
        socket.send(answer, peer.port, peer.address)
      })
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  servers.push(socket)
  return `127.0.0.1:${socket.address().port}`
}

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'agent-checks-'))
  const siteServer = createHttpServer((req, res) => {
    siteSaw.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host ?? '' })
    if (req.url === '/to-stop') res.writeHead(302, { location: `http://127.0.0.1:${site}/stop` }).end()
    else if (req.url === '/down') res.writeHead(503).end('down for maintenance')
    else if (req.url === '/moved') res.writeHead(302, { location: '/' }).end()
    else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('slow but fine'), 300)
    else if (req.url === '/hang') return
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('internal admin: all services green')
  })
  siteServer.on('connection', () => {
    siteConnections++
  })
  site = await listen(siteServer)
  const closed = createTcpServer()
  refused = await listen(closed)
  await new Promise((resolve) => closed.close(resolve))
  blackhole = await startBlackhole()
  servers.push({ close: () => blackhole.stop() })
  const now = Date.now()
  const certificate = (name: string, from: number, until: number) =>
    makeCertificate(path.join(root, name), new Date(from), new Date(until), 'ec')
  const serve = async (cert: { cert: string; key: string }, minVersion: SecureVersion) => {
    const server = createTlsServer(
      {
        ...cert,
        minVersion,
        // Called with the client's SNI during the handshake; no context of its own: the server's serves.
        SNICallback: (name, answer) => {
          serverNames.push(name)
          answer(null)
        },
      },
      (socket) => socket.end(),
    )
    server.on('tlsClientError', () => {})
    return listen(server)
  }
  const valid = certificate('valid', now - DAY, now + 200 * DAY)
  validUntil = valid.notAfter
  tls.valid = await serve(valid, 'TLSv1.2')
  tls.tls13Only = await serve(valid, 'TLSv1.3')
  tls.nearExpiry = await serve(certificate('near', now - DAY, now + 3 * DAY + 3_600_000), 'TLSv1.3')
  tls.expired = await serve(certificate('expired', now - 90 * DAY, now - 2 * DAY - 3_600_000), 'TLSv1.3')
  dnsServer = await startDns()
})

afterAll(() => {
  for (const server of servers) server.close()
  rmSync(root, { recursive: true, force: true })
})

const http = (target: string, config: Partial<Extract<NodeCheck, { type: 'http' }>> = {}): NodeCheck => ({
  type: 'http',
  target,
  timeoutMs: 2000,
  method: 'GET',
  expectedStatus: { min: 200, max: 399 },
  followRedirects: false,
  ...config,
})

/** For the mechanics only: an address literal as it is, any name to 127.0.0.1 (where the test servers are). */
const toLoopback: Vet = async (host) => ({ address: isIP(host) === 0 ? '127.0.0.1' : host })
const run = (check: NodeCheck) => runNodeCheck(check, { vet: toLoopback, dnsServer })

describe('http from the node', () => {
  it('should be up on an expected status with the keyword, down otherwise, naming why', async () => {
    const base = `http://127.0.0.1:${site}`
    expect(await run(http(`${base}/`, { keyword: 'all services green' }))).toMatchObject({
      outcome: 'up',
      detail: 'HTTP 200',
      latencyMs: expect.any(Number),
    })
    expect(await run(http(`${base}/`, { keyword: 'red' }))).toMatchObject({
      outcome: 'down',
      detail: 'HTTP 200, but "red" is not in the first 64 KB of the body',
    })
    expect(await run(http(`${base}/down`))).toMatchObject({
      outcome: 'down',
      detail: 'HTTP 503 (expected 200–399)',
    })
    expect(await run(http(`${base}/moved`, { expectedStatus: { min: 200, max: 299 } }))).toMatchObject({
      outcome: 'down',
      detail: 'HTTP 302 (expected 200–299)',
    })
    expect(await run(http(`${base}/moved`, { followRedirects: true }))).toMatchObject({
      outcome: 'up',
      detail: 'HTTP 200 after 1 redirect',
    })
    expect(await run(http(`${base}/slow`, { slowMs: 100 }))).toMatchObject({ outcome: 'degraded' })
  })

  it('should be down when nothing listens, and when no answer comes within the timeout', async () => {
    const refusedAnswer = await run(http(`http://127.0.0.1:${refused}/`))
    expect(refusedAnswer.outcome).toBe('down')
    expect(refusedAnswer.detail).toMatch(/^request failed: .*ECONNREFUSED/)
    const started = Date.now()
    expect(await run(http(`http://127.0.0.1:${site}/hang`, { timeoutMs: 500 }))).toEqual({
      outcome: 'down',
      latencyMs: null,
      detail: 'no answer within 500 ms',
    })
    expect(Date.now() - started).toBeLessThan(2000)
  })
})

describe('tcp from the node', () => {
  it('should be up when the port accepts, down when it refuses or never answers', async () => {
    expect(await run({ type: 'tcp', target: `127.0.0.1:${site}`, timeoutMs: 2000 })).toMatchObject({
      outcome: 'up',
      detail: 'connected',
    })
    const refusal = await run({ type: 'tcp', target: `127.0.0.1:${refused}`, timeoutMs: 2000 })
    expect(refusal.detail).toMatch(/^could not connect: connect ECONNREFUSED 127\.0\.0\.1:/)
    expect(await run({ type: 'tcp', target: `127.0.0.1:${blackhole.port}`, timeoutMs: 500 })).toEqual({
      outcome: 'down',
      latencyMs: null,
      detail: 'connect timed out after 500 ms',
    })
    expect((await run({ type: 'tcp', target: 'no port', timeoutMs: 500 })).detail).toBe(
      'the target no port is not host:port',
    )
  })
})

describe('cert from the node', () => {
  const cert = (port: number, timeoutMs = 3000): NodeCheck => ({
    type: 'cert',
    target: `127.0.0.1:${port}`,
    timeoutMs,
    certWarnDays: 14,
  })

  it('should read the certificate of a TLS 1.3-only server as of any other, untrusted as it is', async () => {
    const day = validUntil.toISOString().slice(0, 10)
    for (const port of [tls.valid, tls.tls13Only]) {
      const verdict = await run(cert(port))
      expect(verdict.outcome).toBe('up')
      expect(verdict.detail).toMatch(new RegExp(`^certificate valid until ${day} \\((199|200) days left\\)$`))
    }
  })

  it('should be degraded near expiry and down once expired or unreadable', async () => {
    expect(await run(cert(tls.nearExpiry))).toMatchObject({
      outcome: 'degraded',
      detail: 'certificate expires in 3 days (warn at 14)',
    })
    expect(await run(cert(tls.expired))).toMatchObject({
      outcome: 'down',
      detail: expect.stringMatching(/^certificate expired 2 days ago \(on /),
    })
    const plain = await run(cert(site))
    expect(plain.outcome).toBe('down')
    expect(plain.detail).toMatch(/^could not read the certificate's expiry: /)
    expect(await run(cert(blackhole.port, 500))).toMatchObject({
      outcome: 'down',
      detail: "could not read the certificate's expiry: no TLS handshake within 500 ms",
    })
  })
})

describe('dns from the node', () => {
  const dns = (target: string, recordType: 'A' | 'AAAA' | 'MX' | 'TXT', expectedValues: string[] = []) =>
    run({ type: 'dns', target, timeoutMs: 2000, recordType, expectedValues })

  it('should ask the given resolver and judge the records as the edge does', async () => {
    expect(await dns('db.internal.test', 'A', ['10.1.2.3'])).toMatchObject({
      outcome: 'up',
      detail: 'A 10.1.2.3',
    })
    expect(await dns('db.internal.test', 'AAAA', ['2001:DB8::5'])).toMatchObject({ outcome: 'up' })
    expect(await dns('mail.internal.test', 'MX', ['10 mx1.internal.test'])).toMatchObject({
      outcome: 'up',
      detail: 'MX 10 mx1.internal.test',
    })
    expect(await dns('mail.internal.test', 'TXT', ['v=spf1 -all'])).toMatchObject({ outcome: 'up' })
    expect(await dns('db.internal.test', 'A', ['10.1.2.3', '10.1.2.4'])).toMatchObject({
      outcome: 'degraded',
      detail: 'A is missing 10.1.2.4 (answer: 10.1.2.3)',
    })
  })

  it('should be down for NXDOMAIN, no records and a resolver that does not answer', async () => {
    expect(await dns('missing.internal.test', 'A')).toMatchObject({
      outcome: 'down',
      detail: 'NXDOMAIN: missing.internal.test does not exist',
    })
    expect(await dns('empty.internal.test', 'A')).toMatchObject({ outcome: 'down', detail: 'no A records' })
    const silent = await runNodeCheck(
      { type: 'dns', target: 'db.internal.test', timeoutMs: 500, recordType: 'A', expectedValues: [] },
      { vet: toLoopback, dnsServer: `127.0.0.1:${refused}` },
    )
    expect(silent.outcome).toBe('down')
    expect(silent.detail).toMatch(/^the DNS resolver (did not answer within 500 ms|failed: )/)
  })
})

describe("the destination rule of a node's checks", () => {
  const rule = (allowCidrs: string[] = [], resolve?: (name: string) => Promise<string[]>) =>
    destinationRule({
      own: [
        { what: "this agent's contract API", host: '10.0.0.5', port: 8790 },
        { what: "Caddy's admin API", host: '0.0.0.0', port: 2019 },
      ],
      allowCidrs,
      ...(resolve ? { resolve } : {}),
    })
  const guarded = (check: NodeCheck, allowCidrs: string[] = []) =>
    runNodeCheck(check, { vet: rule(allowCidrs), dnsServer })
  const SELF = "a node's checks never reach the node itself"

  it('should refuse http://127.0.0.1:<port>/stop with no request made, as GET and as POST', async () => {
    siteSaw.length = 0
    siteConnections = 0
    expect(await guarded(http(`http://127.0.0.1:${site}/stop`))).toEqual({
      outcome: 'down',
      latencyMs: null,
      detail: `refused: 127.0.0.1 is a loopback address; ${SELF}`,
    })
    const post = { ...http(`http://127.0.0.1:${site}/stop`), method: 'POST' } as unknown as NodeCheck
    expect((await guarded(post)).detail).toBe("refused: a node's http checks send GET or HEAD only, not POST")
    // Not even with the mechanics' permissive vetting: the method alone refuses it.
    expect((await run(post)).detail).toBe("refused: a node's http checks send GET or HEAD only, not POST")
    expect(await guarded({ type: 'tcp', target: `127.0.0.1:${site}`, timeoutMs: 2000 })).toMatchObject({
      outcome: 'down',
      detail: `refused: 127.0.0.1 is a loopback address; ${SELF}`,
    })
    expect(
      (
        await guarded({
          type: 'cert',
          target: `[::ffff:127.0.0.1]:${site}`,
          timeoutMs: 2000,
          certWarnDays: 14,
        })
      ).detail,
    ).toBe(`refused: ::ffff:127.0.0.1 is a loopback address; ${SELF}`)
    expect(siteSaw).toEqual([])
    expect(siteConnections).toBe(0)
  })

  it('should refuse a name that resolves to loopback when the check runs', async () => {
    siteSaw.length = 0
    expect((await guarded(http(`http://localhost:${site}/`))).detail).toBe(
      `refused: localhost resolves to 127.0.0.1, a loopback address; ${SELF}`,
    )
    expect((await guarded({ type: 'tcp', target: `localhost:${site}`, timeoutMs: 2000 })).detail).toBe(
      `refused: localhost resolves to 127.0.0.1, a loopback address; ${SELF}`,
    )
    expect(siteSaw).toEqual([])
  })

  it('should vet each redirect hop the same way', async () => {
    siteSaw.length = 0
    const firstHopOnly: Vet = (host, port, timeoutMs) =>
      host === 'redirector.test' ? Promise.resolve({ address: '127.0.0.1' }) : rule()(host, port, timeoutMs)
    const verdict = await runNodeCheck(
      http(`http://redirector.test:${site}/to-stop`, { followRedirects: true }),
      {
        vet: firstHopOnly,
        dnsServer,
      },
    )
    expect(verdict.detail).toBe(`redirect 1: refused: 127.0.0.1 is a loopback address; ${SELF}`)
    expect(siteSaw.map((seen) => seen.url)).toEqual(['/to-stop'])
  })

  it('should connect to the vetted address, keeping the name as Host and SNI (no second resolution)', async () => {
    siteSaw.length = 0
    serverNames.length = 0
    // pinned.test resolves nowhere: only the vetted address can have reached the servers.
    expect(await run(http(`http://pinned.test:${site}/`))).toMatchObject({ outcome: 'up' })
    expect(siteSaw).toEqual([{ method: 'GET', url: '/', host: `pinned.test:${site}` }])
    expect(await run(http(`http://pinned.test:${site}/`, { method: 'HEAD' }))).toMatchObject({
      outcome: 'up',
    })
    expect(siteSaw[1]?.method).toBe('HEAD')
    const cert = await run({
      type: 'cert',
      target: `pinned.test:${tls.valid}`,
      timeoutMs: 3000,
      certWarnDays: 14,
    })
    expect(cert.outcome).toBe('up')
    expect(serverNames).toEqual(['pinned.test'])
  })

  it('should refuse unspecified, link-local and metadata destinations, IPv4-mapped ones too', async () => {
    const vet = rule(['10.0.0.0/8', '169.254.0.0/16', '127.0.0.0/8'])
    const refusal = async (host: string, port = 80) => {
      const vetted = await vet(host, port, 1000)
      return 'problem' in vetted ? vetted.problem : `passed to ${vetted.address}`
    }
    expect(await refusal('0.0.0.0')).toBe(
      `refused: 0.0.0.0 is an unspecified address, which is the node itself; ${SELF}`,
    )
    expect(await refusal('::')).toMatch(/^refused: :: is an unspecified address/)
    expect(await refusal('::1')).toBe(`refused: ::1 is a loopback address; ${SELF}`)
    expect(await refusal('127.0.0.1')).toMatch(/loopback/)
    const linkLocal = "a link-local address, where cloud metadata answers; a node's checks never reach it"
    expect(await refusal('169.254.169.254')).toBe(`refused: 169.254.169.254 is ${linkLocal}`)
    expect(await refusal('::ffff:a9fe:a9fe')).toBe(`refused: ::ffff:a9fe:a9fe is ${linkLocal}`)
    expect(await refusal('fe80::1')).toBe(`refused: fe80::1 is ${linkLocal}`)
    for (const name of ['metadata.google.internal', 'Metadata.Google.Internal.', 'metadata', 'instance-data'])
      expect(await refusal(name)).toBe(
        `refused: ${name} is a cloud metadata service; a node's checks never reach it`,
      )
  })

  it('should refuse a private address unless allowCidrs holds it, and every address of a name must pass', async () => {
    const names: Record<string, string[]> = {
      'db.internal.test': ['10.1.2.3'],
      'mixed.test': ['192.0.2.10', '10.9.9.9'],
      'rebind.test': ['192.0.2.10', '::ffff:127.0.0.1'],
    }
    const resolve = async (name: string) => names[name] ?? []
    const vetted = (allowCidrs: string[], host: string, port = 80) =>
      rule(allowCidrs, resolve)(host, port, 1000)
    const outside = "a private address outside this node's allowed ranges (checkAllowCidrs)"
    expect(await vetted([], '10.1.2.3')).toEqual({ problem: `refused: 10.1.2.3 is ${outside}` })
    expect(await vetted(['10.1.0.0/16'], '10.1.2.3')).toEqual({ address: '10.1.2.3' })
    expect(await vetted([], 'db.internal.test')).toEqual({
      problem: `refused: db.internal.test resolves to 10.1.2.3, ${outside}`,
    })
    expect(await vetted(['10.1.2.3/32'], 'db.internal.test')).toEqual({ address: '10.1.2.3' })
    for (const [address, cidr] of [
      ['172.20.0.1', '172.16.0.0/12'],
      ['192.168.1.1', '192.168.0.0/16'],
      ['100.64.0.1', '100.64.0.0/10'],
      ['fd00::2', 'fd00::/64'],
    ]) {
      expect(await vetted([], address as string)).toEqual({ problem: `refused: ${address} is ${outside}` })
      expect(await vetted([cidr as string], address as string)).toEqual({ address })
    }
    expect(await vetted([], 'mixed.test')).toEqual({
      problem: `refused: mixed.test resolves to 10.9.9.9, ${outside}`,
    })
    expect(await vetted(['10.0.0.0/8'], 'mixed.test')).toEqual({ address: '192.0.2.10' })
    expect(await vetted(['127.0.0.0/8'], 'rebind.test')).toEqual({
      problem: `refused: rebind.test resolves to ::ffff:127.0.0.1, a loopback address; ${SELF}`,
    })
    expect(await vetted([], 'nothing.test')).toEqual({
      problem: 'could not resolve nothing.test: no addresses',
    })
    expect(await vetted([], '192.0.2.10', 443)).toEqual({ address: '192.0.2.10' })
  })

  it("should refuse the agent's own listeners, even inside allowCidrs", async () => {
    const vet = rule(['10.0.0.0/8', 'fd00::/8'])
    expect(await vet('10.0.0.5', 8790, 1000)).toEqual({
      problem: `refused: 10.0.0.5 port 8790 is this agent's contract API; ${SELF}`,
    })
    expect(await vet('10.0.0.5', 8791, 1000)).toEqual({ address: '10.0.0.5' })
    // Caddy's admin on 0.0.0.0: every address of this machine, on that port.
    const mine = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && !entry.internal && !entry.address.startsWith('fe80'))
    expect(mine, 'this test needs a network interface besides loopback').toBeDefined()
    const address = mine?.address ?? ''
    const anyOfMine = rule([`${address}/${isIP(address) === 4 ? 32 : 128}`])
    expect(await anyOfMine(address, 2019, 1000)).toEqual({
      problem: `refused: ${address} port 2019 is Caddy's admin API; ${SELF}`,
    })
    expect(await anyOfMine(address, 2020, 1000)).toEqual({ address })
  })
})

import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createTcpServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createServer as createTlsServer, type SecureVersion } from 'node:tls'
import { decode } from '@dnsquery/dns-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runNodeCheck } from '../../node-agent/checks/run.ts'
import type { NodeCheck } from '../../src/agent-contract/checks.ts'
import type { DnsLookupType } from '../../src/outside/doh.ts'
import { dohAnswer } from '../fakes/doh-wire.ts'
import { type Blackhole, startBlackhole } from '../probes/servers/blackhole.ts'
import { makeCertificate } from '../probes/servers/certificates.ts'

// The agent's check runners, each against a real local counterpart on 127.0.0.1: an HTTP site, TCP ports that
// accept, refuse or never answer, TLS servers (a TLS 1.3-only one among them) and a DNS server on UDP.

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
  site = await listen(
    createHttpServer((req, res) => {
      if (req.url === '/down') res.writeHead(503).end('down for maintenance')
      else if (req.url === '/moved') res.writeHead(302, { location: '/' }).end()
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('slow but fine'), 300)
      else if (req.url === '/hang') return
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('internal admin: all services green')
    }),
  )
  const closed = createTcpServer()
  refused = await listen(closed)
  await new Promise((resolve) => closed.close(resolve))
  blackhole = await startBlackhole()
  servers.push({ close: () => blackhole.stop() })
  const now = Date.now()
  const certificate = (name: string, from: number, until: number) =>
    makeCertificate(path.join(root, name), new Date(from), new Date(until), 'ec')
  const serve = async (cert: { cert: string; key: string }, minVersion: SecureVersion) => {
    const server = createTlsServer({ ...cert, minVersion }, (socket) => socket.end())
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

const run = (check: NodeCheck) => runNodeCheck(check, dnsServer)

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
      `127.0.0.1:${refused}`,
    )
    expect(silent.outcome).toBe('down')
    expect(silent.detail).toMatch(/^the DNS resolver (did not answer within 500 ms|failed: )/)
  })
})

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCaddyConfig } from '../../node-agent/caddy-admin.ts'
import { dropStoredCertificate, observeCertificate } from '../../node-agent/certificates.ts'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import {
  freePort,
  signedPost,
  startCaddy,
  type TcpCaddyProcess,
  testAgentConfig,
} from '../../node-agent/testing/harness.ts'
import { type PebbleProcess, startPebble } from '../../node-agent/testing/pebble.ts'
import { EDGE_STATE_PARTS_CALLBACK } from '../../src/agent-contract/edge-changes.ts'
import { CertificateObservationSchema } from '../../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../../src/lib/agent-signature.ts'

// Certificates end to end on this machine: the agent primes on-demand issuance through a real Caddy from a
// real pebble, reads what Caddy serves, reports it to a panel stand-in, smoke-tests, renews, and reports a
// certificate Caddy replaced by itself at its next scan.
let caddy: TcpCaddyProcess
let pebble: PebbleProcess
let agent: RunningAgent
let storage: string
let site: Server
let panel: Server
const reports: { headers: IncomingHttpHeaders; body: string }[] = []
const edgeStateCalls: IncomingHttpHeaders[] = []
let httpsPort = 0
const secret = testAgentConfig('', '').secret
const hostname = 'shop.example.test'

async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}

beforeAll(async () => {
  ;[caddy, pebble] = await Promise.all([startCaddy(), startPebble()])
  storage = await mkdtemp(path.join(tmpdir(), 'agent-storage-'))
  site = createServer((request, response) => response.end(`hello from the site at ${request.headers.host}`))
  panel = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk
    })
    request.on('end', () => {
      const json = { 'content-type': 'application/json' }
      // A panel before the paged catch-up: 404 to it, then the whole (empty) state.
      if (request.url === EDGE_STATE_PARTS_CALLBACK) return response.writeHead(404, json).end('{}')
      if (request.method === 'GET') {
        edgeStateCalls.push(request.headers)
        return response.writeHead(200, json).end('{"state":null}')
      }
      reports.push({ headers: request.headers, body })
      response.writeHead(200, json).end('{"accepted":1,"ignored":0}')
    })
  })
  const [sitePort, panelPort] = await Promise.all([listenLocal(site), listenLocal(panel)])
  httpsPort = await freePort()
  agent = await startAgent(
    testAgentConfig(storage, caddy.adminUrl, {
      httpsListen: `127.0.0.1:${httpsPort}`,
      httpListen: `127.0.0.1:${await freePort()}`,
      acmeDirectories: { pebble: pebble.directoryUrl, letsencrypt: 'https://127.0.0.1:1/directory' },
      pebbleCaRoot: pebble.trustBundle,
      panelUrl: `http://127.0.0.1:${panelPort}`,
      nodeId: 'node-1',
    }),
  )
  const applied = await signedPost(
    agent.url,
    '/v2/edge/apply',
    {
      configVersion: 1,
      vhosts: [{ hostname, upstream: `127.0.0.1:${sitePort}`, issuer: 'pebble' }],
      forwards: [],
    },
    secret,
  )
  expect(applied.status, JSON.stringify(applied.body)).toBe(200)
}, 30_000)

afterAll(async () => {
  await agent?.close()
  await Promise.all([caddy?.stop(), pebble?.stop()])
  await Promise.all([site, panel].map((server) => new Promise((resolve) => server?.close(resolve))))
  await rm(storage, { recursive: true, force: true })
})

describe('certificates through Caddy and pebble', () => {
  let firstSerial = ''

  it('should prime: obtain on demand, observe the served certificate and report it signed to the panel', async () => {
    const res = await signedPost(agent.url, '/v2/certificates/prime', { hostname }, secret)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const observation = CertificateObservationSchema.parse(res.body)
    expect(observation.hostname).toBe(hostname)
    expect(observation.issuer).toMatch(/Pebble/)
    expect(Date.parse(observation.notAfter)).toBeGreaterThan(Date.now())
    firstSerial = observation.serial
    expect(reports).toHaveLength(1)
    const report = reports[0]
    expect(report?.headers['x-node-id']).toBe('node-1')
    const verdict = await verifyAgentSignature(
      secret,
      {
        direction: 'agent-to-panel',
        method: 'POST',
        path: '/api/agent/v1/certificates',
        body: report?.body ?? '',
      },
      report?.headers ?? {},
    )
    expect(verdict.ok).toBe(true)
    expect(JSON.parse(report?.body ?? '')).toEqual({ observations: [observation] })
  }, 30_000)

  it('should pass the smoke test when the site answers through Caddy', async () => {
    const res = await signedPost(agent.url, '/v2/smoke', { hostname }, secret)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: true, status: 200 })
  })

  it('should renew: drop the stored certificate and serve a new one', async () => {
    const res = await signedPost(agent.url, '/v2/certificates/renew', { hostname }, secret)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const observation = CertificateObservationSchema.parse(res.body)
    expect(observation.serial).not.toBe(firstSerial)
    expect(reports).toHaveLength(2)
  }, 30_000)

  it('should report a certificate Caddy replaced by itself at the next scan, and nothing unchanged', async () => {
    expect(await agent.agent.scanCertificates()).toEqual([])
    const reported = reports.length
    // What Caddy does at a renewal, without the agent: the old certificate leaves the storage and the cache, and
    // the next handshake is served a new one.
    await dropStoredCertificate(storage, hostname)
    const running = await (await fetch(`${caddy.adminUrl}/config/`)).json()
    expect(await loadCaddyConfig(caddy.adminUrl, running, true)).toEqual({ accepted: true })
    const renewed = await observeCertificate(hostname, {
      host: '127.0.0.1',
      port: httpsPort,
      ca: await readFile(pebble.trustBundle, 'utf8'),
    })
    const scanned = await agent.agent.scanCertificates()
    expect(scanned).toEqual([expect.objectContaining({ hostname, serial: renewed.serial })])
    // The attempt watcher reports Caddy's own issuance beside it, in whichever order the two land.
    expect(reports.slice(reported).map((report) => JSON.parse(report.body))).toContainEqual({
      observations: scanned,
    })
    expect(await agent.agent.scanCertificates()).toEqual([])
  }, 30_000)

  it('should have asked the panel for the current edge state at start, signed for that GET', async () => {
    expect(edgeStateCalls).toHaveLength(1)
    const verdict = await verifyAgentSignature(
      secret,
      { direction: 'agent-to-panel', method: 'GET', path: '/api/agent/v1/edge-state', body: '' },
      edgeStateCalls[0] ?? {},
    )
    expect(verdict.ok).toBe(true)
    expect(edgeStateCalls[0]?.['x-node-id']).toBe('node-1')
  })

  it('should fail the smoke test when the site is down, naming the status', async () => {
    await new Promise((resolve) => site.close(resolve))
    const res = await signedPost(agent.url, '/v2/smoke', { hostname }, secret)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: false, status: 502 })
  })
})

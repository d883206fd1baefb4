import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import {
  type CaddyProcess,
  freePort,
  signedPost,
  startCaddy,
  testAgentConfig,
} from '../../node-agent/testing/harness.ts'
import { type PebbleProcess, startPebble } from '../../node-agent/testing/pebble.ts'
import { CertificateObservationSchema } from '../../src/agent-contract/v1.ts'
import { verifyServiceSignature } from '../../src/lib/service-signature.ts'

// Certificates end to end on this machine: the agent primes on-demand issuance through a real Caddy from a
// real pebble, reads what Caddy serves, reports it to a panel stand-in, smoke-tests and renews.
let caddy: CaddyProcess
let pebble: PebbleProcess
let agent: RunningAgent
let storage: string
let site: Server
let panel: Server
const reports: { headers: IncomingHttpHeaders; body: string }[] = []
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
      reports.push({ headers: request.headers, body })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"accepted":1,"ignored":0}')
    })
  })
  const [sitePort, panelPort] = await Promise.all([listenLocal(site), listenLocal(panel)])
  agent = await startAgent(
    testAgentConfig(storage, caddy.adminUrl, {
      httpsListen: `127.0.0.1:${await freePort()}`,
      httpListen: `127.0.0.1:${await freePort()}`,
      acmeDirectories: { pebble: pebble.directoryUrl, letsencrypt: 'https://127.0.0.1:1/directory' },
      pebbleCaRoot: pebble.trustBundle,
      panelUrl: `http://127.0.0.1:${panelPort}`,
      nodeId: 'node-1',
    }),
  )
  const applied = await signedPost(
    agent.url,
    '/v1/edge/apply',
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
    const res = await signedPost(agent.url, '/v1/certificates/prime', { hostname }, secret)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const observation = CertificateObservationSchema.parse(res.body)
    expect(observation.hostname).toBe(hostname)
    expect(observation.issuer).toMatch(/Pebble/)
    expect(Date.parse(observation.notAfter)).toBeGreaterThan(Date.now())
    firstSerial = observation.serial
    expect(reports).toHaveLength(1)
    const report = reports[0]
    expect(report?.headers['x-node-id']).toBe('node-1')
    expect(
      await verifyServiceSignature(report?.body ?? '', report?.headers as Record<string, string>, secret),
    ).toEqual({ ok: true })
    expect(JSON.parse(report?.body ?? '')).toEqual({ observations: [observation] })
  }, 30_000)

  it('should pass the smoke test when the site answers through Caddy', async () => {
    const res = await signedPost(agent.url, '/v1/smoke', { hostname }, secret)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: true, status: 200 })
  })

  it('should renew: drop the stored certificate and serve a new one', async () => {
    const res = await signedPost(agent.url, '/v1/certificates/renew', { hostname }, secret)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const observation = CertificateObservationSchema.parse(res.body)
    expect(observation.serial).not.toBe(firstSerial)
    expect(reports).toHaveLength(2)
  }, 30_000)

  it('should fail the smoke test when the site is down, naming the status', async () => {
    await new Promise((resolve) => site.close(resolve))
    const res = await signedPost(agent.url, '/v1/smoke', { hostname }, secret)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: false, status: 502 })
  })
})

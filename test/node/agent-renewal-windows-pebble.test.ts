import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { get as httpsGet } from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
import { RENEWAL_WINDOWS_CALLBACK } from '../../src/agent-contract/renewal-windows.ts'

// The renewal window end to end on this machine: a real Caddy obtains a certificate from a real pebble, and the
// agent asks about it at its scan. Debian's pebble 2.4.0 serves no renewalInfo, so its directory reaches Caddy
// and the agent through a stand-in that adds one (every other URL in it is pebble's own, so Caddy's ACME
// traffic goes to pebble untouched) and answers it as Let's Encrypt does.

let caddy: TcpCaddyProcess
let pebble: PebbleProcess
let agent: RunningAgent
let storage: string
let site: Server
let panel: Server
let ari: Server
const posts: { path: string; body: string }[] = []
const ariRequests: string[] = []
const secret = testAgentConfig('', '').secret
const hostname = 'ari.example.test'
const window = { start: '2027-02-01T00:00:00Z', end: '2027-02-03T00:00:00Z' }

function pebbleDirectory(): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    readFile(pebble.trustBundle, 'utf8').then((ca) => {
      httpsGet(pebble.directoryUrl, { ca }, (response) => {
        let body = ''
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk
        })
        response.on('end', () => resolve(JSON.parse(body) as Record<string, unknown>))
      }).on('error', reject)
    }, reject)
  })
}

async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}

beforeAll(async () => {
  ;[caddy, pebble] = await Promise.all([startCaddy(), startPebble()])
  storage = await mkdtemp(path.join(tmpdir(), 'agent-ari-storage-'))
  site = createServer((_request, response) => response.end('hello'))
  ari = createServer((request, response) => {
    const url = request.url ?? ''
    const json = { 'content-type': 'application/json' }
    if (url === '/dir') {
      const base = `http://127.0.0.1:${(ari.address() as { port: number }).port}`
      void pebbleDirectory().then((directory) =>
        response
          .writeHead(200, json)
          .end(JSON.stringify({ ...directory, renewalInfo: `${base}/renewal-info` })),
      )
      return
    }
    ariRequests.push(url)
    response
      .writeHead(200, { ...json, 'retry-after': '21600' })
      .end(JSON.stringify({ suggestedWindow: window }))
  })
  panel = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk
    })
    request.on('end', () => {
      const json = { 'content-type': 'application/json' }
      if (request.url === EDGE_STATE_PARTS_CALLBACK) return response.writeHead(404, json).end('{}')
      if (request.method === 'GET') return response.writeHead(200, json).end('{"state":null}')
      posts.push({ path: request.url ?? '', body })
      response.writeHead(200, json).end('{"accepted":1,"ignored":0}')
    })
  })
  const [sitePort, panelPort, ariPort] = await Promise.all([
    listenLocal(site),
    listenLocal(panel),
    listenLocal(ari),
  ])
  agent = await startAgent(
    testAgentConfig(storage, caddy.adminUrl, {
      httpsListen: `127.0.0.1:${await freePort()}`,
      httpListen: `127.0.0.1:${await freePort()}`,
      acmeDirectories: {
        pebble: `http://127.0.0.1:${ariPort}/dir`,
        letsencrypt: 'https://127.0.0.1:1/directory',
      },
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
}, 60_000)

afterAll(async () => {
  await agent?.close()
  await Promise.all([caddy?.stop(), pebble?.stop()])
  await Promise.all([site, panel, ari].map((server) => new Promise((resolve) => server?.close(resolve))))
  await rm(storage, { recursive: true, force: true })
})

/** The certID of a PEM file, from openssl's own reading of its AKI and serial (RFC 9773 §4.1). */
function certIdByOpenssl(file: string): string {
  const text = execFileSync(
    'openssl',
    ['x509', '-in', file, '-noout', '-serial', '-ext', 'authorityKeyIdentifier'],
    {
      encoding: 'utf8',
    },
  )
  const serialHex = /serial=([0-9A-F]+)/.exec(text)?.[1] ?? ''
  const keyId = /X509v3 Authority Key Identifier:\s*\n\s*(?:keyid:)?([0-9A-F:]+)/.exec(text)?.[1] ?? ''
  // DER keeps a leading zero byte when the first byte's high bit is set; openssl prints the bare value.
  const even = serialHex.length % 2 ? `0${serialHex}` : serialHex
  const der = Number.parseInt(even.slice(0, 2), 16) >= 0x80 ? `00${even}` : even
  return `${Buffer.from(keyId.replaceAll(':', ''), 'hex').toString('base64url')}.${Buffer.from(der, 'hex').toString('base64url')}`
}

describe('the renewal window of a certificate pebble issued through Caddy', () => {
  it('should ask the CA about the served certificate at the scan and report the window to the panel', async () => {
    const primed = await signedPost(agent.url, '/v2/certificates/prime', { hostname }, secret)
    expect(primed.status, JSON.stringify(primed.body)).toBe(200)
    const serial = String(primed.body.serial)
    await agent.agent.scanCertificates()
    const stored = execFileSync('find', [storage, '-name', `${hostname}.crt`], { encoding: 'utf8' }).trim()
    expect(ariRequests).toEqual([`/renewal-info/${certIdByOpenssl(stored)}`])
    const reported = posts.filter((post) => post.path === RENEWAL_WINDOWS_CALLBACK)
    expect(reported.map((post) => JSON.parse(post.body))).toEqual([
      { windows: [{ hostname, serial, ...window }] },
    ])

    // The next scan, well within Retry-After: neither a question to the CA nor a report.
    await agent.agent.scanCertificates()
    expect(ariRequests).toHaveLength(1)
    expect(posts.filter((post) => post.path === RENEWAL_WINDOWS_CALLBACK)).toHaveLength(1)
  }, 60_000)
})

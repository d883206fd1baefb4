import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { connect, createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { loadEdgeState, saveEdgeState } from '../../node-agent/state-file.ts'
import {
  freePort,
  signedPost,
  startCaddy,
  type TcpCaddyProcess,
  testAgentConfig,
} from '../../node-agent/testing/harness.ts'
import type { EdgeState } from '../../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../../src/lib/agent-signature.ts'

// Durable edge state: what the agent applied survives its restart (and a fresh Caddy), and a node that missed
// pushes asks the panel for the current state by itself.
let dir: string
let echo: Server
let echoPort: number
const secret = testAgentConfig('', '').secret

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-state-'))
  echo = createServer((socket) => socket.pipe(socket))
  await new Promise<void>((resolve) => echo.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = echo.address()
  echoPort = typeof address === 'object' && address ? address.port : 0
})

afterAll(async () => {
  await new Promise((resolve) => echo.close(resolve))
  await rm(dir, { recursive: true, force: true })
})

function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    let echoed = ''
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text))
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      echoed += chunk
      if (echoed.length >= text.length) socket.end()
    })
    socket.once('error', (error) => resolve(`error: ${error.message}`))
    socket.once('close', () => resolve(echoed))
  })
}

/** The routes of the TLS server Caddy runs now ([] when it runs none). */
async function caddyRoutes(adminUrl: string): Promise<unknown[]> {
  const config = (await (await fetch(`${adminUrl}/config/`)).json()) as {
    apps?: { http?: { servers?: { edge?: { routes?: unknown[] } } } }
  } | null
  return config?.apps?.http?.servers?.edge?.routes ?? []
}

describe('the saved edge state file', () => {
  const state: EdgeState = {
    configVersion: 4,
    vhosts: [{ hostname: 'shop.example.test', upstream: '127.0.0.1:9', issuer: 'pebble', issuable: true }],
    forwards: [{ listenPort: 2222, proto: 'tcp', upstream: '127.0.0.1:22' }],
  }

  it('should read back what was saved for the same node, and leave no temporary file', async () => {
    const stateDir = path.join(dir, 'file-round-trip')
    await saveEdgeState(stateDir, 'node-1', state)
    await saveEdgeState(stateDir, 'node-1', { ...state, configVersion: 5 })
    expect(await loadEdgeState(stateDir, 'node-1')).toEqual({ ...state, configVersion: 5 })
    expect(await readdir(stateDir)).toEqual(['edge-state.json'])
  })

  it('should ignore a state saved for another node, nothing saved, and a torn or foreign file', async () => {
    const stateDir = path.join(dir, 'file-ignored')
    expect(await loadEdgeState(stateDir, 'node-1')).toBeNull()
    await saveEdgeState(stateDir, 'node-1', state)
    expect(await loadEdgeState(stateDir, 'node-2')).toBeNull()
    await writeFile(path.join(stateDir, 'edge-state.json'), '{"nodeId":"node-1","state":{"configVers')
    expect(await loadEdgeState(stateDir, 'node-1')).toBeNull()
    await writeFile(path.join(stateDir, 'edge-state.json'), '{"nodeId":"node-1","state":{"vhosts":[]}}')
    expect(await loadEdgeState(stateDir, 'node-1')).toBeNull()
  })
})

describe('an agent restarted beside a fresh Caddy', () => {
  let caddy: TcpCaddyProcess
  let agent: RunningAgent | null = null
  const storage = () => path.join(dir, 'restart')
  const hostname = 'shop.example.test'
  let forwardPort: number
  let ports: { httpsListen: string; httpListen: string }

  beforeAll(async () => {
    caddy = await startCaddy()
    forwardPort = await freePort()
    ports = {
      httpsListen: `127.0.0.1:${await freePort()}`,
      httpListen: `127.0.0.1:${await freePort()}`,
    }
  })

  afterAll(async () => {
    await agent?.close()
    await caddy?.stop()
  })

  const start = (nodeId: string) =>
    startAgent(testAgentConfig(storage(), caddy.adminUrl, { ...ports, nodeId }))

  it('should serve the saved vhosts, forwards and ask gate again before answering anything', async () => {
    agent = await start('node-1')
    const applied = await signedPost(
      agent.url,
      '/v2/edge/apply',
      {
        configVersion: 7,
        vhosts: [{ hostname, upstream: `127.0.0.1:${echoPort}`, issuer: 'pebble', issuable: true }],
        forwards: [{ listenPort: forwardPort, proto: 'tcp', upstream: `127.0.0.1:${echoPort}` }],
      },
      secret,
    )
    expect(applied.status, JSON.stringify(applied.body)).toBe(200)
    await agent.close()
    agent = null
    // The node restarts: the forward is gone with the agent, and Caddy comes back with nothing but its admin API.
    expect(await roundTrip(forwardPort, 'anyone?')).toContain('ECONNREFUSED')
    await caddy.stop()
    caddy = await startCaddy()
    expect(await caddyRoutes(caddy.adminUrl)).toEqual([])

    agent = await start('node-1')
    expect(agent.agent.appliedVersion).toBe(7)
    expect(await roundTrip(forwardPort, 'back after a restart')).toBe('back after a restart')
    expect(await agent.agent.mayIssue(hostname)).toBe(true)
    expect(await caddyRoutes(caddy.adminUrl)).toEqual([
      expect.objectContaining({ match: [{ host: [hostname] }] }),
    ])
    const health = await signedPost(agent.url, '/v2/health', {}, secret)
    expect(health.body).toMatchObject({ appliedVersion: 7 })
  })

  it('should not serve what was saved for another node', async () => {
    await agent?.close()
    agent = await start('node-2')
    expect(agent.agent.appliedVersion).toBe(0)
    expect(await agent.agent.mayIssue(hostname)).toBe(false)
    expect(await roundTrip(forwardPort, 'anyone?')).toContain('ECONNREFUSED')
  })
})

describe('catching up with the panel at start', () => {
  let caddy: TcpCaddyProcess
  let panel: HttpServer
  let agent: RunningAgent
  const calls: { method: string; verified: boolean; nodeId: string | undefined }[] = []

  beforeAll(async () => {
    caddy = await startCaddy()
    const state: EdgeState = {
      configVersion: 12,
      vhosts: [{ hostname: 'missed.example.test', upstream: `127.0.0.1:${echoPort}`, issuer: 'pebble' }],
      forwards: [],
    }
    panel = createHttpServer((request, response) => {
      void (async () => {
        const verdict = await verifyAgentSignature(
          secret,
          {
            direction: 'agent-to-panel',
            method: request.method ?? '',
            path: request.url ?? '',
            body: '',
          },
          request.headers,
        )
        calls.push({
          method: request.method ?? '',
          verified: verdict.ok,
          nodeId: request.headers['x-node-id'] as string | undefined,
        })
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ state }))
      })()
    })
    await new Promise<void>((resolve) => panel.listen({ host: '127.0.0.1', port: 0 }, resolve))
    const address = panel.address()
    const panelPort = typeof address === 'object' && address ? address.port : 0
    agent = await startAgent(
      testAgentConfig(path.join(dir, 'catch-up'), caddy.adminUrl, {
        httpsListen: `127.0.0.1:${await freePort()}`,
        httpListen: `127.0.0.1:${await freePort()}`,
        panelUrl: `http://127.0.0.1:${panelPort}`,
        nodeId: 'node-9',
      }),
    )
  })

  afterAll(async () => {
    await agent?.close()
    await caddy?.stop()
    await new Promise((resolve) => panel?.close(resolve))
  })

  it('should ask the panel once, signed, and apply the newer state it answers', async () => {
    for (let i = 0; i < 50 && agent.agent.appliedVersion < 12; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(agent.agent.appliedVersion).toBe(12)
    expect(calls).toEqual([{ method: 'GET', verified: true, nodeId: 'node-9' }])
    expect(await agent.agent.mayIssue('missed.example.test')).toBe(true)
  })
})

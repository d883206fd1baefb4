import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer } from 'node:http'
import { connect, createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { StateFiles } from '../../node-agent/state-file.ts'
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

describe('the saved edge state: a snapshot and a journal', () => {
  const state: EdgeState = {
    configVersion: 4,
    vhosts: [{ hostname: 'shop.example.test', upstream: '127.0.0.1:9', issuer: 'pebble', issuable: true }],
    forwards: [{ listenPort: 2222, proto: 'tcp', upstream: '127.0.0.1:22' }],
  }
  const added = { hostname: 'new.example.test', upstream: '127.0.0.1:9', issuer: 'pebble' } as const
  const none = { vhosts: [], removeHostnames: [], forwards: [], removeForwards: [] }

  it('should read back what was saved for the same node, and leave no temporary file', async () => {
    const stateDir = path.join(dir, 'file-round-trip')
    const files = new StateFiles(stateDir, 'node-1')
    await files.snapshot(state)
    await files.snapshot({ ...state, configVersion: 5 })
    expect(await new StateFiles(stateDir, 'node-1').load()).toEqual({ ...state, configVersion: 5 })
    expect((await readdir(stateDir)).sort()).toEqual(['edge-journal.ndjson', 'edge-state.json'])
  })

  it('should write the first change as a snapshot, then append each change as one journal line', async () => {
    const stateDir = path.join(dir, 'file-journal')
    const files = new StateFiles(stateDir, 'node-1')
    await files.record(0, 4, { ...none, vhosts: state.vhosts, forwards: state.forwards }, () => state)
    const snapshot = await readFile(path.join(stateDir, 'edge-state.json'), 'utf8')
    await files.record(4, 5, { ...none, vhosts: [added] }, () => {
      throw new Error('a journaled change never renders the whole state')
    })
    await files.record(5, 6, { ...none, removeHostnames: ['shop.example.test'] }, () => state)
    expect(await readFile(path.join(stateDir, 'edge-state.json'), 'utf8')).toBe(snapshot)
    const lines = (await readFile(path.join(stateDir, 'edge-journal.ndjson'), 'utf8')).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { baseVersion: 4, configVersion: 5, ...none, vhosts: [added] },
      { baseVersion: 5, configVersion: 6, ...none, removeHostnames: ['shop.example.test'] },
    ])
    expect(await new StateFiles(stateDir, 'node-1').load()).toEqual({
      configVersion: 6,
      vhosts: [added],
      forwards: state.forwards,
    })
  })

  it('should restore the journal in order up to a torn last line, then start over with a snapshot', async () => {
    const stateDir = path.join(dir, 'file-torn')
    const files = new StateFiles(stateDir, 'node-1')
    await files.snapshot(state)
    await files.record(4, 5, { ...none, vhosts: [added] }, () => state)
    // The agent stopped while appending the next change (never answered): half a line.
    await appendFile(path.join(stateDir, 'edge-journal.ndjson'), '{"baseVersion":5,"configVersion":6,"vho')
    const restarted = new StateFiles(stateDir, 'node-1')
    const restored = await restarted.load()
    expect(restored).toEqual({ configVersion: 5, vhosts: [...state.vhosts, added], forwards: state.forwards })
    // A line appended after the torn one could not be read: the next change writes a snapshot instead.
    const next = { configVersion: 6, vhosts: state.vhosts, forwards: [] }
    await restarted.record(5, 6, { ...none, removeHostnames: [added.hostname] }, () => next)
    expect(await readFile(path.join(stateDir, 'edge-journal.ndjson'), 'utf8')).toBe('')
    expect(await new StateFiles(stateDir, 'node-1').load()).toEqual(next)
  })

  it('should skip journal lines a snapshot already holds, and say when the journal outgrew the snapshot', async () => {
    const stateDir = path.join(dir, 'file-compact')
    const files = new StateFiles(stateDir, 'node-1')
    await files.snapshot(state)
    await files.record(4, 5, { ...none, vhosts: [added] }, () => state)
    // A compaction that wrote its snapshot but stopped before emptying the journal.
    const compacted = { ...state, configVersion: 5, vhosts: [added] }
    const journal = await readFile(path.join(stateDir, 'edge-journal.ndjson'), 'utf8')
    await files.snapshot(compacted)
    await writeFile(path.join(stateDir, 'edge-journal.ndjson'), journal)
    expect(await new StateFiles(stateDir, 'node-1').load()).toEqual(compacted)
    const big = Array.from({ length: 5000 }, (_, i) => ({ ...added, hostname: `h${i}.example.test` }))
    expect(await files.record(5, 6, { ...none, vhosts: big }, () => state)).toBe(true)
  })

  it('should ignore a state saved for another node, nothing saved, and a torn or foreign file', async () => {
    const stateDir = path.join(dir, 'file-ignored')
    expect(await new StateFiles(stateDir, 'node-1').load()).toBeNull()
    await new StateFiles(stateDir, 'node-1').snapshot(state)
    expect(await new StateFiles(stateDir, 'node-2').load()).toBeNull()
    await writeFile(path.join(stateDir, 'edge-state.json'), '{"nodeId":"node-1","state":{"configVers')
    expect(await new StateFiles(stateDir, 'node-1').load()).toBeNull()
    await writeFile(path.join(stateDir, 'edge-state.json'), '{"nodeId":"node-1","state":{"vhosts":[]}}')
    expect(await new StateFiles(stateDir, 'node-1').load()).toBeNull()
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

type PanelAnswer = (call: { method: string; body: string }) => { status: number; body: unknown }

/** A fake panel: verifies each call's signature, records it, answers what `answer` says. */
async function fakePanel(answer: PanelAnswer) {
  const calls: {
    method: string
    path: string
    body: string
    verified: boolean
    nodeId: string | undefined
  }[] = []
  const panel = createHttpServer((request, response) => {
    void (async () => {
      let body = ''
      for await (const chunk of request) body += String(chunk)
      const method = request.method ?? ''
      const path = request.url ?? ''
      const verdict = await verifyAgentSignature(
        secret,
        { direction: 'agent-to-panel', method, path, body },
        request.headers,
      )
      const nodeId = request.headers['x-node-id'] as string | undefined
      calls.push({ method, path, body, verified: verdict.ok, nodeId })
      const answered = answer({ method, body })
      response.writeHead(answered.status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answered.body))
    })()
  })
  await new Promise<void>((resolve) => panel.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = panel.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return { calls, url, close: () => new Promise((resolve) => panel.close(resolve)) }
}

describe('catching up with the panel at start', () => {
  let caddy: TcpCaddyProcess
  const running: { close(): Promise<unknown> }[] = []

  beforeAll(async () => {
    caddy = await startCaddy()
  })

  afterAll(async () => {
    for (const item of running.reverse()) await item.close()
    await caddy?.stop()
  })

  async function startWith(answer: PanelAnswer, name: string) {
    const panel = await fakePanel(answer)
    running.push(panel)
    const agent = await startAgent(
      testAgentConfig(path.join(dir, name), caddy.adminUrl, {
        httpsListen: `127.0.0.1:${await freePort()}`,
        httpListen: `127.0.0.1:${await freePort()}`,
        panelUrl: panel.url,
        nodeId: 'node-9',
      }),
    )
    running.push(agent)
    return { panel, agent }
  }

  async function untilVersion(agent: RunningAgent, version: number) {
    for (let i = 0; i < 50 && agent.agent.appliedVersion < version; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  it('should ask a panel without the paged callback (404) for the whole state, signed, and apply it', async () => {
    const state: EdgeState = {
      configVersion: 12,
      vhosts: [{ hostname: 'missed.example.test', upstream: `127.0.0.1:${echoPort}`, issuer: 'pebble' }],
      forwards: [],
    }
    const { panel, agent } = await startWith(
      ({ method }) => (method === 'POST' ? { status: 404, body: {} } : { status: 200, body: { state } }),
      'catch-up-whole',
    )
    await untilVersion(agent, 12)
    expect(agent.agent.appliedVersion).toBe(12)
    expect(
      panel.calls.map(({ method, path, verified, nodeId }) => ({ method, path, verified, nodeId })),
    ).toEqual([
      { method: 'POST', path: '/api/agent/v2/edge-state-parts', verified: true, nodeId: 'node-9' },
      { method: 'GET', path: '/api/agent/v1/edge-state', verified: true, nodeId: 'node-9' },
    ])
    expect(await agent.agent.mayIssue('missed.example.test')).toBe(true)
  })

  it('should assemble the pages of one version, starting over when the version changed between pages', async () => {
    const vhost = (name: string) => ({ hostname: name, upstream: `127.0.0.1:${echoPort}`, issuer: 'pebble' })
    const pages: Record<string, unknown>[] = [
      { configVersion: 20, vhosts: [vhost('a.paged.test')], forwards: [], nextCursor: 'a.paged.test' },
      // The state changed meanwhile: this page is of version 21.
      { configVersion: 21, vhosts: [vhost('c.paged.test')], forwards: [], nextCursor: null },
      { configVersion: 21, vhosts: [vhost('a.paged.test')], forwards: [], nextCursor: 'a.paged.test' },
      { configVersion: 21, vhosts: [vhost('b.paged.test')], forwards: [], nextCursor: null },
    ]
    const { panel, agent } = await startWith(
      ({ method }) => (method === 'POST' ? { status: 200, body: pages.shift() } : { status: 500, body: {} }),
      'catch-up-paged',
    )
    await untilVersion(agent, 21)
    expect(agent.agent.appliedVersion).toBe(21)
    expect(panel.calls.map(({ body }) => JSON.parse(body))).toEqual([
      { cursor: null },
      { cursor: 'a.paged.test' },
      { cursor: null },
      { cursor: 'a.paged.test' },
    ])
    expect(await agent.agent.mayIssue('a.paged.test')).toBe(true)
    expect(await agent.agent.mayIssue('b.paged.test')).toBe(true)
    expect(await agent.agent.mayIssue('c.paged.test')).toBe(false)
  })
})

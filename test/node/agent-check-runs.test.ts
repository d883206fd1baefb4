import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { createServer as createTcpServer, isIP, type Server as TcpServer } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { freePort, signedPost, testAgentConfig } from '../../node-agent/testing/harness.ts'
import { EDGE_STATE_PARTS_CALLBACK } from '../../src/agent-contract/edge-changes.ts'
import { CALLBACK_PATHS } from '../../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../../src/lib/agent-signature.ts'

// `POST /v2/checks/run` on a running agent: it takes the check at once, runs it from the node and posts the
// verdict to the panel, signed as the node (here a fake panel on 127.0.0.1 that verifies it). The node's
// destination rule refuses its loopback, so a check that must connect targets this machine's own non-loopback
// address (allowed with allowCidrs, as an operator allows a private range).

const secret = testAgentConfig('', '').secret
const NODE_ID = 'node-checks-1'

interface Posted {
  path: string
  nodeId: string | undefined
  signed: boolean
  body: Record<string, unknown>
}

let dir: string
let panel: Server
let agent: RunningAgent
let unbound: number
let target: TcpServer
let targetPort: number
/** Requests and connections the loopback site received. */
let loopbackRequests = 0
let loopbackSite: Server
let loopbackStop: string
let agentPanelUrl: string
const posted: Posted[] = []
/** The statuses the fake panel answers the next result posts with, in turn (then 200). */
let answers: number[] = []

async function read(request: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of request) body += String(chunk)
  return body
}

/** This machine's first address besides loopback and link-local: where a check may connect. */
function ownAddress(): string {
  const entry = Object.values(networkInterfaces())
    .flat()
    .find((candidate) => candidate && !candidate.internal && !candidate.address.startsWith('fe80'))
  if (!entry) throw new Error('these tests need a network interface besides loopback')
  return entry.address
}
const mine = ownAddress()
const mineCidr = `${mine}/${isIP(mine) === 4 ? 32 : 128}`
const at = (port: number) => (isIP(mine) === 6 ? `[${mine}]:${port}` : `${mine}:${port}`)

function listenOn(server: TcpServer | Server, host: string): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, host, () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    }),
  )
}

beforeAll(async () => {
  target = createTcpServer((socket) => socket.destroy())
  targetPort = await listenOn(target, mine)
  loopbackSite = createServer((_request, response) => {
    loopbackRequests++
    response.end('stopped')
  })
  loopbackSite.on('connection', () => {
    loopbackRequests++
  })
  const loopbackPort = await listenOn(loopbackSite, '127.0.0.1')
  loopbackStop = `http://127.0.0.1:${loopbackPort}/stop`
  dir = await mkdtemp(path.join(tmpdir(), 'agent-check-runs-'))
  panel = createServer((request, response) => {
    void read(request).then(async (raw) => {
      const route = new URL(request.url ?? '/', 'http://panel').pathname
      // A panel before the paged catch-up: 404 to it, then the whole (empty) state.
      if (route === EDGE_STATE_PARTS_CALLBACK) return response.writeHead(404).end('{}')
      if (route === CALLBACK_PATHS.edgeState) return response.writeHead(200).end('{"state":null}')
      const verdict = await verifyAgentSignature(
        secret,
        { direction: 'agent-to-panel', method: request.method ?? '', path: route, body: raw },
        request.headers,
      )
      const nodeId = request.headers['x-node-id']
      posted.push({
        path: route,
        nodeId: typeof nodeId === 'string' ? nodeId : undefined,
        signed: verdict.ok,
        body: JSON.parse(raw) as Record<string, unknown>,
      })
      response.writeHead(answers.shift() ?? 200, { 'content-type': 'application/json' })
      response.end('{"recorded":true}')
    })
  })
  const panelPort = await new Promise<number>((resolve) =>
    panel.listen(0, '127.0.0.1', () => {
      const address = panel.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    }),
  )
  agentPanelUrl = `http://127.0.0.1:${panelPort}`
  unbound = await freePort()
  agent = await startAgent(
    testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`, {
      panelUrl: agentPanelUrl,
      nodeId: NODE_ID,
    }),
  )
})

afterAll(async () => {
  await agent.close()
  await new Promise((resolve) => panel.close(resolve))
  await new Promise((resolve) => target.close(resolve))
  await new Promise((resolve) => loopbackSite.close(resolve))
  await rm(dir, { recursive: true, force: true })
})

beforeEach(() => {
  posted.length = 0
  answers = []
})

const tcpRun = (address: string, location = NODE_ID, probeId = 'probe-1', allowCidrs = [mineCidr]) => ({
  probeId,
  scheduledAt: 1_700_000_000_000,
  location,
  check: { type: 'tcp', target: address, timeoutMs: 2000 },
  allowCidrs,
})
const httpRun = (url: string, method = 'GET') => ({
  probeId: 'probe-http',
  scheduledAt: 1_700_000_000_000,
  location: NODE_ID,
  check: {
    type: 'http',
    target: url,
    timeoutMs: 2000,
    method,
    expectedStatus: { min: 200, max: 399 },
    followRedirects: false,
  },
})
const SELF = "a node's checks never reach the node itself"

async function postsUntil(count: number, waitMs = 8000): Promise<Posted[]> {
  const until = Date.now() + waitMs
  while (posted.length < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25))
  return [...posted]
}

describe('POST /v2/checks/run', () => {
  it('should take the check at once and post the verdict back, signed as the node', async () => {
    const taken = await signedPost(agent.url, '/v2/checks/run', tcpRun(at(targetPort)), secret)
    expect(taken).toMatchObject({ status: 200, body: { accepted: true } })
    const [result] = await postsUntil(1)
    expect(result).toEqual({
      path: CALLBACK_PATHS.checkResults,
      nodeId: NODE_ID,
      signed: true,
      body: {
        probeId: 'probe-1',
        scheduledAt: 1_700_000_000_000,
        location: NODE_ID,
        outcome: 'up',
        latencyMs: expect.any(Number),
        detail: 'connected',
      },
    })
  })

  it('should post a failing check as down with its reason', async () => {
    await signedPost(agent.url, '/v2/checks/run', tcpRun(at(unbound)), secret)
    const [result] = await postsUntil(1)
    expect(result?.body).toMatchObject({ outcome: 'down', latencyMs: null })
    expect(result?.body.detail).toMatch(/^could not connect: connect ECONNREFUSED/)
  })

  it('should post again after the panel failed, and not after it refused', async () => {
    const port = targetPort
    answers = [503]
    await signedPost(agent.url, '/v2/checks/run', tcpRun(at(port), NODE_ID, 'probe-retried'), secret)
    const twice = await postsUntil(2)
    expect(twice.map((p) => p.body.probeId)).toEqual(['probe-retried', 'probe-retried'])
    posted.length = 0
    answers = [409]
    await signedPost(agent.url, '/v2/checks/run', tcpRun(at(port), NODE_ID, 'probe-late'), secret)
    await postsUntil(1)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(posted.map((p) => p.body.probeId)).toEqual(['probe-late'])
  })

  it("should refuse a check of the node's loopback, with no request made (GET http://127.0.0.1:<port>/stop)", async () => {
    loopbackRequests = 0
    await signedPost(agent.url, '/v2/checks/run', httpRun(loopbackStop), secret)
    const [result] = await postsUntil(1)
    expect(result?.body).toMatchObject({
      probeId: 'probe-http',
      outcome: 'down',
      latencyMs: null,
      detail: `refused: 127.0.0.1 is a loopback address; ${SELF}`,
    })
    expect(loopbackRequests).toBe(0)
  })

  it('should refuse a private address unless the request allows its range', async () => {
    const privateRun = (allowCidrs: string[]) => ({
      ...tcpRun('10.255.255.1:9', NODE_ID, `probe-private-${allowCidrs.length}`, allowCidrs),
      check: { type: 'tcp', target: '10.255.255.1:9', timeoutMs: 500 },
    })
    await signedPost(agent.url, '/v2/checks/run', privateRun([]), secret)
    await signedPost(agent.url, '/v2/checks/run', privateRun(['10.255.0.0/16']), secret)
    const results = await postsUntil(2)
    const detail = (allowed: number) =>
      results.find((p) => p.body.probeId === `probe-private-${allowed}`)?.body.detail
    expect(detail(0)).toBe(
      "refused: 10.255.255.1 is a private address outside this node's allowed ranges (checkAllowCidrs)",
    )
    // Allowed: the rule passes and the connection is tried (whatever this machine's network makes of it).
    expect(detail(1)).toMatch(/^(connected|connect timed out after 500 ms|could not connect: )/)
  })

  it("should refuse a check of the agent's own listener, even inside allowCidrs", async () => {
    const wide = await startAgent(
      testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`, {
        listen: '0.0.0.0:0',
        panelUrl: agentPanelUrl,
        nodeId: NODE_ID,
      }),
    )
    try {
      const port = Number(new URL(wide.url).port)
      await signedPost(wide.url, '/v2/checks/run', tcpRun(at(port), NODE_ID, 'probe-own'), secret)
      const [own] = await postsUntil(1)
      expect(own?.body.detail).toBe(`refused: ${mine} port ${port} is this agent's contract API; ${SELF}`)
    } finally {
      await wide.close()
    }
  })

  it('should refuse a check meant for another node, and a check it cannot read, naming the field', async () => {
    const other = await signedPost(agent.url, '/v2/checks/run', tcpRun(at(1), 'another-node'), secret)
    expect(other.status).toBe(409)
    expect(other.body.detail).toBe(`this agent runs as node ${NODE_ID}, not another-node`)
    const unknown = await signedPost(
      agent.url,
      '/v2/checks/run',
      { ...tcpRun(at(1)), check: { type: 'ping', target: '127.0.0.1' } },
      secret,
    )
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toBe('invalid body: check.type')
    const post = await signedPost(agent.url, '/v2/checks/run', httpRun(loopbackStop, 'POST'), secret)
    expect(post.status).toBe(400)
    expect(post.body.detail).toBe('invalid body: check.method')
    const range = await signedPost(
      agent.url,
      '/v2/checks/run',
      tcpRun(at(1), NODE_ID, 'probe-1', ['10.0.0.0/8', 'everything']),
      secret,
    )
    expect(range.status).toBe(400)
    expect(range.body.detail).toBe('invalid body: allowCidrs.1')
    const unsigned = await signedPost(agent.url, '/v2/checks/run', tcpRun(at(1)), 'not-the-secret-at-all')
    expect(unsigned.status).toBe(401)
    expect(posted).toEqual([])
  })
})

describe('an agent without a panel', () => {
  it('should refuse checks, since it could not post their results', async () => {
    const alone = await startAgent(testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`))
    try {
      const refused = await signedPost(alone.url, '/v2/checks/run', tcpRun(at(1)), secret)
      expect(refused.status).toBe(409)
      expect(refused.body.code).toBe('no_panel')
    } finally {
      await alone.close()
    }
  })
})

import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { freePort, signedPost, testAgentConfig } from '../../node-agent/testing/harness.ts'
import { CALLBACK_PATHS } from '../../src/agent-contract/v1.ts'
import { verifyAgentSignature } from '../../src/lib/agent-signature.ts'

// `POST /v2/checks/run` on a running agent: it takes the check at once, runs it from the node and posts the
// verdict to the panel, signed as the node (here a fake panel on 127.0.0.1 that verifies it).

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
const posted: Posted[] = []
/** The statuses the fake panel answers the next result posts with, in turn (then 200). */
let answers: number[] = []

async function read(request: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of request) body += String(chunk)
  return body
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-check-runs-'))
  panel = createServer((request, response) => {
    void read(request).then(async (raw) => {
      const route = new URL(request.url ?? '/', 'http://panel').pathname
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
  unbound = await freePort()
  agent = await startAgent(
    testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`, {
      panelUrl: `http://127.0.0.1:${panelPort}`,
      nodeId: NODE_ID,
    }),
  )
})

afterAll(async () => {
  await agent.close()
  await new Promise((resolve) => panel.close(resolve))
  await rm(dir, { recursive: true, force: true })
})

beforeEach(() => {
  posted.length = 0
  answers = []
})

const tcpRun = (port: number, location = NODE_ID, probeId = 'probe-1') => ({
  probeId,
  scheduledAt: 1_700_000_000_000,
  location,
  check: { type: 'tcp', target: `127.0.0.1:${port}`, timeoutMs: 2000 },
})

async function postsUntil(count: number, waitMs = 8000): Promise<Posted[]> {
  const until = Date.now() + waitMs
  while (posted.length < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25))
  return [...posted]
}

describe('POST /v2/checks/run', () => {
  it('should take the check at once and post the verdict back, signed as the node', async () => {
    const port = (panel.address() as { port: number }).port
    const taken = await signedPost(agent.url, '/v2/checks/run', tcpRun(port), secret)
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
    await signedPost(agent.url, '/v2/checks/run', tcpRun(unbound), secret)
    const [result] = await postsUntil(1)
    expect(result?.body).toMatchObject({ outcome: 'down', latencyMs: null })
    expect(result?.body.detail).toMatch(/^could not connect: connect ECONNREFUSED/)
  })

  it('should post again after the panel failed, and not after it refused', async () => {
    const port = (panel.address() as { port: number }).port
    answers = [503]
    await signedPost(agent.url, '/v2/checks/run', tcpRun(port, NODE_ID, 'probe-retried'), secret)
    const twice = await postsUntil(2)
    expect(twice.map((p) => p.body.probeId)).toEqual(['probe-retried', 'probe-retried'])
    posted.length = 0
    answers = [409]
    await signedPost(agent.url, '/v2/checks/run', tcpRun(port, NODE_ID, 'probe-late'), secret)
    await postsUntil(1)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(posted.map((p) => p.body.probeId)).toEqual(['probe-late'])
  })

  it('should refuse a check meant for another node, and a check it cannot read, naming the field', async () => {
    const other = await signedPost(agent.url, '/v2/checks/run', tcpRun(1, 'another-node'), secret)
    expect(other.status).toBe(409)
    expect(other.body.detail).toBe(`this agent runs as node ${NODE_ID}, not another-node`)
    const unknown = await signedPost(
      agent.url,
      '/v2/checks/run',
      { ...tcpRun(1), check: { type: 'ping', target: '127.0.0.1' } },
      secret,
    )
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toBe('invalid body: check.type')
    const unsigned = await signedPost(agent.url, '/v2/checks/run', tcpRun(1), 'not-the-secret-at-all')
    expect(unsigned.status).toBe(401)
    expect(posted).toEqual([])
  })
})

describe('an agent without a panel', () => {
  it('should refuse checks, since it could not post their results', async () => {
    const alone = await startAgent(testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`))
    try {
      const refused = await signedPost(alone.url, '/v2/checks/run', tcpRun(1), secret)
      expect(refused.status).toBe(409)
      expect(refused.body.code).toBe('no_panel')
    } finally {
      await alone.close()
    }
  })
})

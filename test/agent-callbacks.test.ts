import { env } from 'cloudflare:workers'
import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { CALLBACK_PATHS } from '../src/agent-contract/v1'
import { db } from '../src/db/client'
import { agentNonces } from '../src/db/schema/fleet'
import type { Env } from '../src/env'
import { type SiteFixture, siteWithToken } from './custom-hostnames/fixture'
import { captureJobs, type SentJob } from './dns-servers/run-job'
import { FakeNodeAgent } from './fakes/node-agent'
import {
  askEdgeState,
  callbackHeaders,
  FIXTURE_AGENT_SECRET,
  reportCertificates,
} from './helpers/agent-callback'
import { type Caller, ok, send } from './helpers/http'
import { drainJobs } from './helpers/jobs'
import { adminSession } from './helpers/principals'

// The node → panel callbacks under contract v2: each signed request is accepted once, only for the call it was
// signed for; the body is capped while it arrives; an unknown node reads exactly like a bad signature; and a
// node asks for its current edge state.

const workerEnv = env as unknown as Env
let admin: Caller
let site: SiteFixture
let sent: SentJob[]

beforeEach(async () => {
  sent = captureJobs()
  admin = await adminSession()
  site = await siteWithToken(admin)
})

const certificatesCall = (body: string) =>
  ({ method: 'POST', path: CALLBACK_PATHS.certificates, body }) as const

interface Problem {
  status: number
  code: string
  detail: string
}

describe('GET /api/agent/v1/edge-state', () => {
  it('should answer null while the node has no edge state', async () => {
    const answer = await askEdgeState(site.nodeId)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({ state: null })
  })

  it('should answer the state the next push carries, so a node that missed the push catches up', async () => {
    const node = await ok<{ agentUrl: string }>('nodes.get', { id: site.nodeId }, admin)
    const agent = new FakeNodeAgent(node.agentUrl, FIXTURE_AGENT_SECRET).install()
    await ok(
      'routes.createRaw',
      { instanceId: site.instanceId, siteId: site.siteId, listenPort: 2222, targetPort: 22 },
      admin,
    )
    // The push has not reached the node (the job has not run): the panel still answers the new state.
    const missed = await askEdgeState(site.nodeId)
    expect(missed.status, missed.text).toBe(200)
    expect(missed.body).toEqual({
      state: {
        configVersion: 1,
        vhosts: [],
        forwards: [{ listenPort: 2222, proto: 'tcp', upstream: '10.0.0.5:22' }],
      },
    })
    await drainJobs(sent, 'route.')
    expect(agent.applies()).toEqual([(missed.body as { state: unknown }).state])
  })

  it('should refuse a GET signed for the certificates call, or as the panel', async () => {
    const path = CALLBACK_PATHS.edgeState
    const forCertificates = await callbackHeaders(site.nodeId, { method: 'GET', path, body: '' }, undefined, {
      path: CALLBACK_PATHS.certificates,
    })
    expect((await send(path, { headers: forCertificates })).status).toBe(401)
    const asPanel = await callbackHeaders(site.nodeId, { method: 'GET', path, body: '' }, undefined, {
      direction: 'panel-to-agent',
    })
    expect((await send(path, { headers: asPanel })).status).toBe(401)
  })
})

describe('signed callbacks', () => {
  it('should accept a signed request once and refuse it the second time', async () => {
    const raw = JSON.stringify({ observations: [] })
    const headers = await callbackHeaders(site.nodeId, certificatesCall(raw))
    const first = await send(CALLBACK_PATHS.certificates, { method: 'POST', headers, body: raw })
    expect(first.status, first.text).toBe(200)
    const replayed = await send(CALLBACK_PATHS.certificates, { method: 'POST', headers, body: raw })
    expect(replayed.status).toBe(401)
    expect((replayed.body as Problem).detail).toBe('this request was already received (its nonce was used)')
    const get = await callbackHeaders(site.nodeId, {
      method: 'GET',
      path: CALLBACK_PATHS.edgeState,
      body: '',
    })
    expect((await send(CALLBACK_PATHS.edgeState, { headers: get })).status).toBe(200)
    expect((await send(CALLBACK_PATHS.edgeState, { headers: get })).status).toBe(401)
  })

  it('should answer an unknown node exactly as a bad signature', async () => {
    const raw = JSON.stringify({ observations: [] })
    const problem = async (headers: Record<string, string>) => {
      const answer = await send(CALLBACK_PATHS.certificates, { method: 'POST', headers, body: raw })
      const { status, code, detail } = answer.body as Problem
      return { status: answer.status, problem: { status, code, detail } }
    }
    const badSignature = await problem(
      await callbackHeaders(site.nodeId, certificatesCall(raw), 'another-secret-0123456789'),
    )
    const unknownNode = await problem(await callbackHeaders(crypto.randomUUID(), certificatesCall(raw)))
    const noNode = await problem(await callbackHeaders('', certificatesCall(raw)))
    expect(badSignature).toEqual({
      status: 401,
      problem: {
        status: 401,
        code: 'unauthenticated',
        detail: 'unknown node or bad signature: the signature does not match',
      },
    })
    expect(unknownNode).toEqual(badSignature)
    expect(noNode).toEqual(badSignature)
    const stale = await callbackHeaders(site.nodeId, certificatesCall(raw))
    stale['x-agent-timestamp'] = String(Date.now() - 6 * 60_000)
    const staleUnknown = { ...stale, 'x-node-id': crypto.randomUUID() }
    expect(await problem(staleUnknown)).toEqual(await problem(stale))
  })

  it('should refuse a report signed for another path or the other direction', async () => {
    const raw = JSON.stringify({ observations: [] })
    const forEdgeState = await callbackHeaders(site.nodeId, certificatesCall(raw), undefined, {
      path: CALLBACK_PATHS.edgeState,
    })
    const asPanel = await callbackHeaders(site.nodeId, certificatesCall(raw), undefined, {
      direction: 'panel-to-agent',
    })
    for (const headers of [forEdgeState, asPanel]) {
      const answer = await send(CALLBACK_PATHS.certificates, { method: 'POST', headers, body: raw })
      expect(answer.status).toBe(401)
    }
  })

  it('should forget nonces once their timestamp has left the window', async () => {
    const database = db(workerEnv.DB)
    await database
      .insert(agentNonces)
      .values({ nodeId: site.nodeId, nonce: 'old-nonce-0123456789', expiresAt: new Date(Date.now() - 1000) })
    expect((await reportCertificates(site.nodeId, { observations: [] })).status).toBe(200)
    const kept = await database
      .select({ nonce: agentNonces.nonce })
      .from(agentNonces)
      .where(eq(agentNonces.nodeId, site.nodeId))
    expect(kept.map((row) => row.nonce)).not.toContain('old-nonce-0123456789')
    expect(kept).toHaveLength(1)
  })
})

describe('the callback body cap', () => {
  const MiB = 1024 * 1024

  // A body of `total` bytes that counts what the panel pulled from it.
  function countedBody(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
    const chunk = new Uint8Array(16 * 1024).fill(0x20)
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return controller.close()
        pulled += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    return { stream, pulled: () => pulled }
  }

  it('should answer 413 as soon as more than 64 KiB arrived, without reading the rest', async () => {
    for (const nodeId of [site.nodeId, crypto.randomUUID()]) {
      const body = countedBody(8 * MiB)
      const raw = 'signed for another body'
      const headers = await callbackHeaders(nodeId, certificatesCall(raw))
      const answer = await send(CALLBACK_PATHS.certificates, { method: 'POST', headers, body: body.stream })
      expect(answer.status, answer.text).toBe(413)
      expect((answer.body as Problem).code).toBe('payload_too_large')
      expect(body.pulled()).toBeLessThan(MiB)
    }
  })

  it('should answer 413 at once to a declared length over 64 KiB', async () => {
    const raw = JSON.stringify({ observations: [], padding: 'x'.repeat(70 * 1024) })
    const headers = await callbackHeaders(site.nodeId, certificatesCall(raw))
    const answer = await send(CALLBACK_PATHS.certificates, { method: 'POST', headers, body: raw })
    expect(answer.status).toBe(413)
  })
})

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { freePort, signedPost, testAgentConfig } from '../../node-agent/testing/harness.ts'
import { type AgentRequest, agentSignatureHeaders } from '../../src/lib/agent-signature.ts'

// Contract v2 signatures at the agent: a request signed for one call, one direction and one moment is accepted
// once, and nowhere else.
let agent: RunningAgent
let dir: string
const secret = testAgentConfig('', '').secret

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-signature-'))
  agent = await startAgent(testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`))
})

afterAll(async () => {
  await agent.close()
  await rm(dir, { recursive: true, force: true })
})

const health = (overrides: Partial<AgentRequest> = {}): AgentRequest => ({
  direction: 'panel-to-agent',
  method: 'POST',
  path: '/v2/health',
  body: '{}',
  ...overrides,
})

async function refusal(path: string, body: unknown, headers: Record<string, string>) {
  const answer = await signedPost(agent.url, path, body, secret, headers)
  expect(answer.status, JSON.stringify(answer.body)).toBe(401)
  expect(answer.contentType).toBe('application/problem+json')
  expect(answer.body).toMatchObject({ status: 401, code: 'unauthenticated' })
  return String(answer.body.detail)
}

describe('contract v2 signatures at the agent', () => {
  it('should accept a request signed for its call, then refuse the same request again', async () => {
    const headers = await agentSignatureHeaders(secret, health())
    const first = await signedPost(agent.url, '/v2/health', {}, secret, headers)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(await refusal('/v2/health', {}, headers)).toContain('the nonce was already used')
  })

  it('should refuse a request signed for another call, even with the same body', async () => {
    const body = { hostname: 'shop.example.com' }
    const forSmoke = await agentSignatureHeaders(
      secret,
      health({ path: '/v2/smoke', body: JSON.stringify(body) }),
    )
    expect(await refusal('/v2/certificates/renew', body, forSmoke)).toContain('does not match')
    expect(await refusal('/v2/certificates/prime', body, forSmoke)).toContain('does not match')
  })

  it('should refuse a signature made for the other direction or another method', async () => {
    const callback = await agentSignatureHeaders(secret, health({ direction: 'agent-to-panel' }))
    expect(await refusal('/v2/health', {}, callback)).toContain('does not match')
    const asGet = await agentSignatureHeaders(secret, health({ method: 'GET' }))
    expect(await refusal('/v2/health', {}, asGet)).toContain('does not match')
  })

  it('should refuse a stale timestamp, another secret, a malformed nonce and missing headers', async () => {
    const stale = await agentSignatureHeaders(secret, health(), Date.now() - 6 * 60 * 1000)
    expect(await refusal('/v2/health', {}, stale)).toContain('5 minutes')
    const foreign = await agentSignatureHeaders('another-secret-0123456789', health())
    expect(await refusal('/v2/health', {}, foreign)).toContain('does not match')
    const shortNonce = await agentSignatureHeaders(secret, health(), Date.now(), 'abc')
    expect(await refusal('/v2/health', {}, shortNonce)).toContain('nonce')
    expect(await refusal('/v2/health', {}, {})).toContain('missing')
  })

  it('should refuse a changed body and check the signature before the route exists', async () => {
    const headers = await agentSignatureHeaders(secret, health())
    expect(await refusal('/v2/health', { extra: 1 }, headers)).toContain('does not match')
    const unknown = await agentSignatureHeaders('another-secret-0123456789', health({ path: '/v2/nothing' }))
    expect(await refusal('/v2/nothing', {}, unknown)).toContain('does not match')
  })
})

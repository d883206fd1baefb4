import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningAgent, startAgent } from '../../node-agent/start.ts'
import { freePort, signedPost, testAgentConfig } from '../../node-agent/testing/harness.ts'
import { CONTRACT_VERSION, HealthSchema } from '../../src/agent-contract/v1.ts'
import { agentSignatureHeaders } from '../../src/lib/agent-signature.ts'

// The agent's HTTP surface without a Caddy behind it (its admin URL points at a closed port).
let agent: RunningAgent
let dir: string
const secret = testAgentConfig('', '').secret

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agent-api-'))
  agent = await startAgent(
    testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`, {
      manageFirewall: true,
      firewallCommand: [
        process.execPath,
        '-e',
        `process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(path.join(dir, 'rules'))}))`,
      ],
    }),
  )
})

afterAll(async () => {
  await agent.close()
  await rm(dir, { recursive: true, force: true })
})

describe('inputs', () => {
  it('should answer 400 naming the field of an entry listed twice', async () => {
    const vhost = { hostname: 'twice.example.com', upstream: '10.0.0.5:80', issuer: 'pebble' }
    const res = await signedPost(
      agent.url,
      '/v2/edge/apply',
      { configVersion: 1, vhosts: [vhost, vhost], forwards: [] },
      secret,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.issues).toEqual([
      { path: 'vhosts.1.hostname', message: 'twice.example.com is listed twice' },
    ])
  })

  it('should answer 400 to unknown fields and 404 to unknown calls', async () => {
    const unknown = await signedPost(agent.url, '/v2/health', { extra: 1 }, secret)
    expect(unknown.status).toBe(400)
    const missing = await signedPost(agent.url, '/v2/nothing-here', {}, secret)
    expect(missing.status).toBe(404)
  })

  it('should answer 501 to the PowerDNS install, which this agent does not do', async () => {
    const res = await signedPost(agent.url, '/v2/powerdns/install', { apiKey: 'k' }, secret)
    expect(res.status).toBe(501)
    expect(res.body.detail).toContain('PowerDNS')
  })

  it('should answer 404 to priming a hostname the applied state does not serve', async () => {
    const res = await signedPost(
      agent.url,
      '/v2/certificates/prime',
      { hostname: 'nope.example.com' },
      secret,
    )
    expect(res.status).toBe(404)
  })
})

describe('without Caddy', () => {
  it('should answer 502 to an apply and keep version 0, restoring the previous firewall rules', async () => {
    const res = await signedPost(
      agent.url,
      '/v2/edge/apply',
      {
        configVersion: 1,
        vhosts: [],
        forwards: [{ listenPort: await freePort(), proto: 'tcp', upstream: '127.0.0.1:9' }],
      },
      secret,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(502)
    expect(res.body.detail).toContain("Caddy's admin API did not answer")
    expect(agent.agent.appliedVersion).toBe(0)
    expect(await readFile(path.join(dir, 'rules'), 'utf8')).toBe('*filter\n:HOSTING-PANEL - [0:0]\nCOMMIT\n')
  })

  it('should report health with the proxy unreachable', async () => {
    const res = await signedPost(agent.url, '/v2/health', {}, secret)
    expect(res.status).toBe(200)
    const health = HealthSchema.parse(res.body)
    expect(health).toMatchObject({
      contract: CONTRACT_VERSION,
      appliedVersion: 0,
      proxy: { name: 'caddy', reachable: false },
    })
  })
})

describe('replays across a restart', () => {
  it('should refuse a request accepted before the agent restarted on the same state directory', async () => {
    const stateDir = path.join(dir, 'replay')
    const config = testAgentConfig(dir, `http://127.0.0.1:${await freePort()}`, { stateDir })
    const headers = await agentSignatureHeaders(secret, {
      direction: 'panel-to-agent',
      method: 'POST',
      path: '/v2/health',
      body: '{}',
    })
    const first = await startAgent(config)
    try {
      expect((await signedPost(first.url, '/v2/health', {}, secret, headers)).status).toBe(200)
    } finally {
      await first.close()
    }
    const second = await startAgent(config)
    try {
      const replayed = await signedPost(second.url, '/v2/health', {}, secret, headers)
      expect(replayed.status).toBe(401)
      expect(replayed.body.detail).toBe('signature refused: the nonce was already used')
      // A request never seen still passes.
      expect((await signedPost(second.url, '/v2/health', {}, secret)).status).toBe(200)
    } finally {
      await second.close()
    }
  })
})
